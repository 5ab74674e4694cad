import "server-only";
import { EVENTS } from "@/inngest/events";
import { parseDuration, type StepConfig, type TemplateContext } from "@/lib/workflow";
import { findEventSince } from "@/server/services/events/find-event-since";
import {
  beginAttempt,
  endAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `wait_for_event` step. */

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
  const { db } = await stepRuntime();
  let c: StepConfig<"wait_for_event">;
  let expression: string;
  try {
    c = resolve("wait_for_event", a.config, a.context) as StepConfig<"wait_for_event">;
    expression = waitExpression(a.key.workspaceId, c.event, c.match);
  } catch (e) {
    return failStep(a.key, `The wait's config is invalid: ${message(e)}`);
  }
  const now = runtimeNow();
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
  const { db } = await stepRuntime();
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
    runtimeNow(),
  );
  return { output, deadlineHit };
}

// A durable wait only sees events that arrive after the executor registered it. The engine marks
// the step waiting one round trip earlier, so something sent in between would be missed. Each wait
// therefore races a look-back step that runs right after the wait is registered and finds what
// arrived in that gap.
export async function lookbackWaitBody(a: {
  workspaceId: string;
  event: string;
  match: Record<string, unknown>;
  since: string;
}) {
  const { db } = await stepRuntime();
  const hit = await findEventSince(db, {
    workspaceId: a.workspaceId,
    event: a.event,
    match: a.match,
    since: new Date(a.since),
  });
  return hit
    ? {
        name: EVENTS.workflowEvent,
        id: hit.id,
        data: { ...hit.payload, workspaceId: a.workspaceId },
      }
    : null;
}
