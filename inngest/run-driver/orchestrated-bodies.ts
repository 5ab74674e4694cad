import "server-only";
import { and, asc, eq, gte } from "drizzle-orm";
import { approvals, outbox } from "@/db/schema";
import { EVENTS } from "@/inngest/events";

import { createRedactor } from "@/lib/redact";
import {
  collectReferences,
  parseDuration,
  parseResolvedConfig,
  tryParseDuration,
  resolveStepConfig,
  TemplateResolutionError,
  type StepConfig,
  type TemplateContext,
} from "@/lib/workflow";
import { closeApproval, openApproval } from "@/server/services/run-state/approval-gate";
import {
  beginAttempt,
  endAttempt,
  markAttemptWaiting,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { resolveWorkflowRef } from "@/server/services/run-state/resolve-workflow-ref";
import { createRun } from "@/server/services/runs/create-run";
import { loadVersionByNumber } from "@/server/services/workflows/load-workflow";
import { engineNow, engineRuntime } from "./runtime";

/**
 * Server-side bodies of the orchestrated step types (each runs inside one durable step). They
 * resolve templates, record the step's rows and return small JSON values the orchestrator
 * branches on. A problem in the config is returned as `{ error }` (a user failure), not thrown.
 */

type Failure = { error: { message: string; class: "user" | "internal" } };
const userError = (message: string): Failure => ({ error: { message, class: "user" } });

export function resolve<T extends string>(
  type: T,
  config: unknown,
  context: TemplateContext,
): unknown {
  const refs = collectReferences(config);
  if (refs.secrets.length)
    throw new TemplateResolutionError(
      "Secrets cannot be used in this step type",
      "secrets",
      "SECRET_UNAVAILABLE",
    );
  const parsed = parseResolvedConfig(type, resolveStepConfig(type, config, context));
  if (!parsed.ok) throw new Error(parsed.problem); // one sentence, not zod's issue array
  return parsed.config;
}

export async function failStep(key: AttemptKey, message: string): Promise<Failure> {
  const { db } = await engineRuntime();
  await beginAttempt(db, key, { now: engineNow() });
  await endAttempt(
    db,
    key,
    { status: "failed", error: { message }, failureClass: "user" },
    engineNow(),
  );
  return userError(message);
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// --- approval ----------------------------------------------------------------------------------

export async function openApprovalBody(a: {
  key: AttemptKey;
  workflowId: string | null;
  hash: string;
  config: unknown;
  context: TemplateContext;
  initiatorUserId: string | null;
  deadline: number;
}) {
  const rt = await engineRuntime();
  let c: StepConfig<"approval">;
  try {
    c = resolve("approval", a.config, a.context) as StepConfig<"approval">;
  } catch (e) {
    return failStep(
      a.key,
      `The approval's config is invalid after resolving templates: ${message(e)}`,
    );
  }
  const now = engineNow();
  const wanted = now.getTime() + parseDuration(c.timeout);
  const expiresAt = new Date(Math.min(wanted, a.deadline));
  const opened = await openApproval(rt.db, rt.keys, {
    key: a.key,
    workflowId: a.workflowId,
    hash: a.hash,
    prompt: c.prompt,
    items: c.items ?? null,
    approvers: c.approvers,
    quorum: c.quorum,
    allowInitiator: c.allowInitiator,
    initiatorUserId: a.initiatorUserId,
    onTimeout: c.onTimeout,
    expiresAt,
    form: c.form ?? null,
    priority: c.priority ?? "normal",
    dueAt: dueDate(c.due, now),
    now,
  });
  return {
    approvalId: opened.approvalId,
    expiresAt: opened.expiresAt,
    cappedByDeadline: wanted > a.deadline,
  };
}

/** An approval's `due` (a duration from now, or an ISO date-time; checked by the config schema). */
function dueDate(due: string | undefined, now: Date): Date | null {
  if (due === undefined) return null;
  const duration = tryParseDuration(due);
  const at = duration.ok ? now.getTime() + duration.ms : Date.parse(due);
  return Number.isNaN(at) ? null : new Date(at);
}

export async function closeApprovalBody(a: {
  key: AttemptKey;
  approvalId: string;
  cappedByDeadline: boolean;
}) {
  const { db } = await engineRuntime();
  const now = engineNow();
  const outcome = await closeApproval(db, {
    approvalId: a.approvalId,
    runId: a.key.runId,
    workspaceId: a.key.workspaceId,
    now,
  });
  const deadlineHit = outcome.timedOut && a.cappedByDeadline;
  const output = {
    type: "approval",
    data: {
      decision: outcome.status,
      reason: outcome.reason,
      decisions: outcome.decisions,
      form: outcome.form,
    },
    meta: { approvalId: a.approvalId, timedOut: outcome.timedOut },
  };
  await endAttempt(
    db,
    a.key,
    deadlineHit
      ? {
          status: "cancelled",
          error: { message: "The run reached its deadline while waiting for approval" },
        }
      : { status: "completed", output, port: outcome.status },
    now,
  );
  return { port: outcome.status, output, deadlineHit };
}

// --- delay -------------------------------------------------------------------------------------

export async function beginDelayBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
  deadline: number;
}) {
  const { db } = await engineRuntime();
  let c: StepConfig<"delay">;
  try {
    c = resolve("delay", a.config, a.context) as StepConfig<"delay">;
  } catch (e) {
    return failStep(
      a.key,
      `The delay's config is invalid after resolving templates: ${message(e)}`,
    );
  }
  const now = engineNow().getTime();
  const target = c.until ? Date.parse(c.until) : now + parseDuration(c.duration as string);
  if (Number.isNaN(target)) return failStep(a.key, `"${c.until}" is not a date`);
  const until = Math.min(Math.max(target, now), a.deadline);
  await beginAttempt(db, a.key, { input: c, status: "waiting", now: engineNow() });
  return { until: new Date(until).toISOString(), cappedByDeadline: target > a.deadline };
}

export async function endDelayBody(a: {
  key: AttemptKey;
  until: string;
  cappedByDeadline: boolean;
}) {
  const { db } = await engineRuntime();
  const output = { type: "delay", data: { until: a.until }, meta: {} };
  await endAttempt(
    db,
    a.key,
    a.cappedByDeadline
      ? { status: "cancelled", error: { message: "The run reached its deadline during the delay" } }
      : { status: "completed", output },
    engineNow(),
  );
  return { output, deadlineHit: a.cappedByDeadline };
}

// --- wait_for_event ----------------------------------------------------------------------------

/** A CEL literal for a JSON value (JSON string escapes are valid CEL string escapes). */
function celLiteral(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    return JSON.stringify(v);
  throw new Error("match values must be strings, numbers, booleans or null");
}

function celPath(path: string): string {
  return path
    .split(".")
    .map((seg) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`))
    .join("");
}

/** The wait's expression: same workspace, same event name, every match field equal. */
export function waitExpression(
  workspaceId: string,
  event: string,
  match: Record<string, unknown>,
): string {
  const parts = [
    `async.data.workspaceId == ${celLiteral(workspaceId)}`,
    `async.data.name == ${celLiteral(event)}`,
  ];
  for (const [path, value] of Object.entries(match))
    parts.push(
      `async.data${celPath(path.startsWith("name") || path.startsWith("data") || path.startsWith("eventId") ? path : `data.${path}`)} == ${celLiteral(value)}`,
    );
  return parts.join(" && ");
}

export async function beginWaitBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
  deadline: number;
}) {
  const { db } = await engineRuntime();
  let c: StepConfig<"wait_for_event">;
  let expression: string;
  try {
    c = resolve("wait_for_event", a.config, a.context) as StepConfig<"wait_for_event">;
    expression = waitExpression(a.key.workspaceId, c.event, c.match);
  } catch (e) {
    return failStep(a.key, `The wait's config is invalid: ${message(e)}`);
  }
  const now = engineNow();
  const wanted = now.getTime() + parseDuration(c.timeout);
  await beginAttempt(db, a.key, { input: c, status: "waiting", now });
  return {
    expression,
    until: new Date(Math.min(wanted, a.deadline)).toISOString(),
    cappedByDeadline: wanted > a.deadline,
    event: c.event,
    match: c.match as Record<string, unknown>,
    since: now.toISOString(),
  };
}

export async function endWaitBody(a: {
  key: AttemptKey;
  event: unknown;
  cappedByDeadline: boolean;
}) {
  const { db } = await engineRuntime();
  const ev = a.event as {
    data?: { name?: string; data?: unknown; eventId?: string; at?: string };
  } | null;
  const data = ev?.data
    ? { name: ev.data.name, data: ev.data.data ?? null, id: ev.data.eventId, at: ev.data.at }
    : null;
  const deadlineHit = data === null && a.cappedByDeadline;
  const output = { type: "wait_for_event", data, meta: { timedOut: data === null } };
  await endAttempt(
    db,
    a.key,
    deadlineHit
      ? {
          status: "cancelled",
          error: { message: "The run reached its deadline while waiting for the event" },
        }
      : { status: "completed", output },
    engineNow(),
  );
  return { output, deadlineHit };
}

// --- loop --------------------------------------------------------------------------------------

/** A loop's items resolved and checked (pure; the proposal dry run uses it too). */
export function resolveLoopStart(
  config: unknown,
  context: TemplateContext,
):
  | { error: string }
  | {
      items: unknown[];
      concurrency: number;
      workflow: string | null;
      version: string | null;
      input: unknown;
    } {
  let c: StepConfig<"loop">;
  try {
    c = resolve("loop", config, context) as StepConfig<"loop">;
  } catch (e) {
    return { error: `The loop's config is invalid: ${message(e)}` };
  }
  if (!Array.isArray(c.items))
    return {
      error: `The loop's items must be an array, got ${c.items === null ? "null" : typeof c.items}`,
    };
  if (c.items.length > c.maxItems)
    return {
      error: `The loop has ${c.items.length} items, more than its maxItems (${c.maxItems})`,
    };
  return {
    items: c.items as unknown[],
    concurrency: c.concurrency,
    workflow: c.workflow ?? null,
    version: c.version ?? null,
    input: c.input ?? null,
  };
}

export async function beginLoopBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
}) {
  const { db } = await engineRuntime();
  const start = resolveLoopStart(a.config, a.context);
  if ("error" in start) return failStep(a.key, start.error);
  await beginAttempt(db, a.key, {
    input: { items: start.items.length, concurrency: start.concurrency },
    now: engineNow(),
  });
  return start;
}

export async function endLoopBody(a: {
  key: AttemptKey;
  outcome: { kind: string; output?: unknown; error?: unknown };
}) {
  const { db } = await engineRuntime();
  const o = a.outcome;
  await endAttempt(
    db,
    a.key,
    o.kind === "completed"
      ? { status: "completed", output: o.output, port: "done" }
      : o.kind === "failed"
        ? {
            status: "failed",
            error: (o.error as Record<string, unknown>) ?? { message: "An iteration failed" },
            failureClass: "user",
          }
        : { status: "cancelled", error: { message: "An iteration was cancelled" } },
    engineNow(),
  );
  return { ok: true };
}

// --- subworkflow -------------------------------------------------------------------------------

export async function startChildBody(a: {
  key: AttemptKey;
  rootRunId: string;
  config: unknown;
  context: TemplateContext;
  override?: { workflow: string; version?: string | null; input: unknown };
}) {
  const rt = await engineRuntime();
  let c: { workflow: string; version?: string | null; input: unknown };
  try {
    c = a.override ?? (resolve("subworkflow", a.config, a.context) as StepConfig<"subworkflow">);
  } catch (e) {
    return failStep(a.key, `The subworkflow's config is invalid: ${message(e)}`);
  }
  const ctx = {
    db: rt.db,
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => engineNow(),
    actor: { type: "system" as const, name: "engine" },
  };
  try {
    const wf = await resolveWorkflowRef(rt.db, a.key.workspaceId, c.workflow);
    const versionId =
      c.version && c.version !== "latest"
        ? (await loadVersionByNumber(rt.db, a.key.workspaceId, wf.id, c.version)).id
        : undefined;
    await beginAttempt(rt.db, a.key, {
      input: { workflow: c.workflow, version: c.version ?? "latest", input: c.input },
      now: engineNow(),
    });
    const child = await rt.db.transaction((tx) =>
      createRun(tx, ctx, {
        workspaceId: a.key.workspaceId,
        workflowId: wf.id,
        versionId,
        input: c.input ?? {},
        trigger: {
          type: "subworkflow",
          id: a.key.runId,
          payload: { parentRunId: a.key.runId, stepPath: a.key.path },
        },
        initiator: { type: "run", id: a.key.runId },
        parent: { runId: a.key.runId, stepId: a.key.stepId, rootRunId: a.rootRunId },
        idempotencyKey: `sub:${a.key.runId}:${a.key.path}:${a.key.attempt}`,
      }),
    );
    await markAttemptWaiting(rt.db, a.key, engineNow(), { childRunId: child.run.id });
    return { childRunId: child.run.id, workflowName: wf.name };
  } catch (e) {
    return failStep(a.key, message(e));
  }
}

export async function endChildBody(a: {
  key: AttemptKey;
  childRunId: string;
  result: { ok: true; output: unknown } | { ok: false; message: string };
}) {
  const { db } = await engineRuntime();
  const redact = createRedactor([]);
  if (a.result.ok) {
    const output = {
      type: a.key.stepType,
      data: redact.value(a.result.output ?? null),
      meta: { childRunId: a.childRunId },
    };
    await endAttempt(db, a.key, { status: "completed", output }, engineNow());
    return { ok: true as const, output };
  }
  await endAttempt(
    db,
    a.key,
    {
      status: "failed",
      error: { message: a.result.message, childRunId: a.childRunId },
      failureClass: "user",
    },
    engineNow(),
  );
  return { ok: false as const, error: { message: a.result.message, childRunId: a.childRunId } };
}

// --- look-backs ----------------------------------------------------------------------------------
// A durable wait only sees events that arrive after the executor registered it. The engine marks
// the step waiting one round trip earlier, so something sent in between would be missed. Each wait
// therefore races a look-back step that runs right after the wait is registered and finds what
// arrived in that gap.

function matchesEvent(payload: Record<string, unknown>, match: Record<string, unknown>): boolean {
  for (const [path, expected] of Object.entries(match)) {
    const parts = path.split(".");
    const root: unknown =
      parts[0] === "name" || parts[0] === "data" || parts[0] === "eventId" ? payload : payload.data;
    let cur: unknown = root;
    for (const p of parts) {
      if (cur === null || typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, p))
        return false;
      cur = (cur as Record<string, unknown>)[p];
    }
    if (cur !== expected) return false;
  }
  return true;
}

export async function lookbackWaitBody(a: {
  workspaceId: string;
  event: string;
  match: Record<string, unknown>;
  since: string;
}) {
  const { db } = await engineRuntime();
  const rows = await db
    .select()
    .from(outbox)
    .where(
      and(
        eq(outbox.workspaceId, a.workspaceId),
        eq(outbox.topic, "event"),
        eq(outbox.name, a.event),
        gte(outbox.createdAt, new Date(Date.parse(a.since) - 1_000)),
      ),
    )
    .orderBy(asc(outbox.createdAt), asc(outbox.id))
    .limit(500);
  const hit = rows.find((r) => matchesEvent(r.payload, a.match));
  return hit
    ? {
        name: EVENTS.workflowEvent,
        id: hit.id,
        data: { ...hit.payload, workspaceId: a.workspaceId },
      }
    : null;
}

export async function checkApprovalBody(a: { approvalId: string }) {
  const { db } = await engineRuntime();
  const [row] = await db
    .select({ status: approvals.status })
    .from(approvals)
    .where(eq(approvals.id, a.approvalId));
  return row && row.status !== "pending" ? { decided: row.status } : null;
}
