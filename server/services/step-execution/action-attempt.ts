import "server-only";
import { createRedactor, type Redactor } from "@/lib/redact";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";
import { defaultTimeoutMs, INSTANT_STEP_TYPES } from "@/lib/workflow/step-traits";
import {
  parseResolvedConfig,
  resolveStepConfig,
  TemplateResolutionError,
  type FailureClass,
  type StepType,
  type TemplateContext,
} from "@/lib/workflow";
import {
  beginAttempt,
  endAttempt,
  recordInstantAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import {
  claimAttempt,
  loadRecordedAttempt,
  renewClaim,
  type RecordedAttempt,
} from "@/server/services/run-state/attempt-claims";
import { randomUUID } from "node:crypto";
import { finalizeCancelledRun } from "@/server/services/run-state/finish-run";
import { currentRunStatus } from "@/server/services/runs/load-run";
import { enqueueWorkflowEvents } from "@/server/services/run-state/workflow-events";
import { handlerFor } from "@/server/services/step-execution/actions/registry";
import { StepFailure } from "@/server/services/step-execution/actions/types";
import { actionContext, instantContext } from "./attempt-context";
import { prepareAttempt } from "./attempt-prepare";
import { runtimeNow, stepRuntime } from "./runtime";

/** What an action attempt returns to the orchestrator (memoized by the durable step). */
export type AttemptOutcome =
  | {
      ok: true;
      output: { type: string; data: unknown; meta: Record<string, unknown> };
      port?: string;
    }
  | {
      ok: false;
      error: { message: string; class: FailureClass; details?: Record<string, unknown> };
      retryable: boolean;
      retryAfterMs?: number;
    };

export interface AttemptArgs {
  key: AttemptKey;
  workflowId: string | null;
  rootRunId: string;
  config: unknown;
  context: TemplateContext;
  /** The step's own timeout (ms), if set. */
  timeoutMs?: number;
  /** Whether other steps of the run wait (approval, delay, event): the run status must be kept right. */
  refreshStatus?: boolean;
  deadline: number;
  maxParallelHint?: number;
  /** An editor test run: its emitted events are recorded in the output but never delivered. */
  isTest?: boolean;
}

const CANCEL_POLL_MS = 1_000;
/**
 * Lease of a claimed attempt (claimAttempt), renewed every third of it while the effect runs: a
 * repeated delivery waits for the holder's result, and takes over only this long after the
 * holder's process stopped renewing (as long as the embedded executor's own job lease).
 */
export const STEP_CLAIM_LEASE_MS = 8_000;

/** A finished attempt's row as the outcome its first delivery returned (a repeated delivery's). */
export function outcomeFromRecord(row: RecordedAttempt): AttemptOutcome {
  if (row.status === "completed")
    return {
      ok: true,
      output: row.output as Extract<AttemptOutcome, { ok: true }>["output"],
      ...(row.port ? { port: row.port } : {}),
    };
  const error = row.error ?? { message: `The step was ${row.status}` };
  const failureClass = row.failureClass ?? "user";
  return {
    ok: false,
    error: {
      message: String(error.message ?? `The step was ${row.status}`),
      class: failureClass,
      ...(error.details ? { details: error.details as Record<string, unknown> } : {}),
    },
    retryable: row.status === "failed" && failureClass === "operational",
    ...(row.retryAfterMs !== null ? { retryAfterMs: row.retryAfterMs } : {}),
  };
}

/**
 * One attempt of an action step, inside a durable step: resolves the config's templates and
 * secrets, records the attempt, runs the handler under a deadline and a cancel watch, redacts
 * every secret from what is stored and returned, and classifies failures (user / operational /
 * internal). Never throws for step failures: the orchestrator decides about retries.
 */
export async function runActionAttempt(args: AttemptArgs): Promise<AttemptOutcome> {
  const rt = await stepRuntime();
  const { db } = rt;
  const type = args.key.stepType as StepType;
  const log = rt.log.child({
    runId: args.key.runId,
    step: args.key.path,
    attempt: args.key.attempt,
  });
  const now = () => runtimeNow();
  let redactor: Redactor = createRedactor([]);
  /** Set once this delivery holds the attempt's claim (just before the effect runs). */
  const held: { claimToken?: string } = {};

  const fail = async (failure: StepFailure | Error, input?: unknown): Promise<AttemptOutcome> => {
    const sf =
      failure instanceof StepFailure
        ? failure
        : new StepFailure(failure.message || "Internal error", "internal");
    if (!(failure instanceof StepFailure)) log.error("step handler crashed", { err: failure });
    const error = redactor.value({
      message: sf.message,
      class: sf.failureClass,
      ...(Object.keys(sf.details).length ? { details: sf.details } : {}),
    });
    await beginAttempt(db, args.key, {
      input: input === undefined ? null : redactor.value(input),
      now: now(),
    });
    const retryable = sf.failureClass === "operational";
    const recorded = await endAttempt(
      db,
      args.key,
      {
        status: "failed",
        error: { message: error.message, ...(error.details ? { details: error.details } : {}) },
        failureClass: sf.failureClass,
        willRetry: retryable,
        ...(sf.retryAfterMs !== undefined ? { retryAfterMs: sf.retryAfterMs } : {}),
      },
      now(),
      undefined,
      true,
      held.claimToken,
    );
    if (!recorded) {
      // Another delivery recorded this attempt first: answer what it recorded.
      const row = await loadRecordedAttempt(db, args.key);
      if (row && !(EXECUTING_STATUSES as readonly string[]).includes(row.status))
        return outcomeFromRecord(row);
    }
    return {
      ok: false,
      error,
      retryable,
      ...(sf.retryAfterMs !== undefined ? { retryAfterMs: sf.retryAfterMs } : {}),
    };
  };

  // 1. Secrets, integrations, the MCP server and the repository, just for this attempt.
  const prepared = await prepareAttempt(rt, args, type);
  if (prepared instanceof StepFailure) return fail(prepared);
  redactor = prepared.redactor;

  // 2. Templates → the concrete config, validated again against the type's schema.
  const resolvedConfig = resolveActionConfig(type, args.config, {
    ...args.context,
    secrets: (n) => prepared.secretValues[n],
  });
  if (!resolvedConfig.ok) return fail(new StepFailure(resolvedConfig.message, "user"));
  const config = resolvedConfig.config;

  const entry = handlerFor(type);
  if (entry.kind !== "action") return fail(new Error(`${type} is not an action step`));

  // Instant steps (no I/O of their own) are recorded in one transaction, start to finish.
  if (INSTANT_STEP_TYPES.has(type)) {
    let result: Awaited<ReturnType<typeof entry.handler>>;
    try {
      result = await entry.handler(instantContext(args, config, log));
    } catch (e) {
      return fail(e instanceof Error ? e : new Error(String(e)), config);
    }
    const output = { type, data: result.data ?? null, meta: result.meta ?? {} };
    const inserted = await recordInstantAttempt(db, args.key, {
      input: config,
      output,
      ...(result.port ? { port: result.port } : {}),
      now: now(),
      inTx:
        result.emit?.length && !args.isTest
          ? (tx) =>
              enqueueWorkflowEvents(
                tx,
                args.key.workspaceId,
                result.emit!.map((ev) => ({
                  ...ev,
                  source: { runId: args.key.runId, stepPath: args.key.path },
                })),
                now(),
              ).then(() => undefined)
          : undefined,
    });
    if (!inserted) {
      // A repeated delivery: the first one's row (and its emitted events) stand.
      const row = await loadRecordedAttempt(db, args.key);
      if (row) return outcomeFromRecord(row);
    }
    return { ok: true, output, ...(result.port ? { port: result.port } : {}) };
  }

  // 3. Claim the attempt before its effect: a repeated delivery answers the recorded result.
  // The step's timeoutMs, else the config's own (http, script, code), else the type default;
  // handlers enforce theirs precisely — this outer limit (plus a grace for SIGTERM → SIGKILL)
  // only guarantees the attempt ends.
  const configTimeout = (config as { timeoutMs?: number }).timeoutMs;
  const stepLimit =
    args.timeoutMs ??
    (configTimeout ? configTimeout + 15_000 : undefined) ??
    defaultTimeoutMs(type) ??
    60_000;
  const claim = await claimAttempt(db, args.key, {
    input: redactor.value(config),
    now,
    token: randomUUID(),
    leaseMs: STEP_CLAIM_LEASE_MS,
    refresh: args.refreshStatus !== false,
    // A repeated delivery waits at most as long as the holder may run, plus its lease twice.
    waitUntil: Date.now() + stepLimit + STEP_CLAIM_LEASE_MS * 2,
  });
  if (claim.kind === "recorded") {
    log.info("repeated delivery of a step attempt: answering its recorded result");
    return outcomeFromRecord(claim.row);
  }
  held.claimToken = claim.token;
  if (claim.takeover)
    log.warn(
      "re-running a step attempt whose previous delivery stopped (its claim lapsed); same Idempotency-Key",
    );

  // 4. Run the handler with a deadline and a cancel watch (scripts get SIGTERM → SIGKILL).
  const deadline = Math.min(args.deadline, runtimeNow().getTime() + stepLimit);
  const controller = new AbortController();
  let cancelRequested = false;
  const timer = setTimeout(
    () => controller.abort(new Error("step timed out")),
    Math.max(0, deadline - runtimeNow().getTime()),
  );
  const watch = setInterval(async () => {
    try {
      const status = await currentRunStatus(db, args.key.runId);
      if (status && !(EXECUTING_STATUSES as readonly string[]).includes(status)) {
        cancelRequested ||= status === "cancel_requested";
        controller.abort(new Error(`run ${status}`));
      }
    } catch {
      // A failed poll is retried on the next tick; the deadline still applies.
    }
  }, CANCEL_POLL_MS);
  const renew = setInterval(() => {
    renewClaim(db, args.key, claim.token, STEP_CLAIM_LEASE_MS).catch((e: unknown) =>
      log.warn("could not renew the step's claim", { err: e }),
    );
  }, STEP_CLAIM_LEASE_MS / 3);
  const ctx = await actionContext({
    rt,
    args,
    type,
    config,
    prepared,
    signal: controller.signal,
    deadline,
    now,
    log,
  });
  try {
    const result = await entry.handler(ctx);
    const output = {
      type,
      data: redactor.value(result.data ?? null),
      meta: redactor.value(result.meta ?? {}),
    };
    const recorded = await endAttempt(
      db,
      args.key,
      { status: "completed", output, ...(result.port ? { port: result.port } : {}) },
      now(),
      // Only a result that emits events needs a transaction of its own around the outcome.
      result.emit?.length && !args.isTest
        ? async (tx) => {
            await enqueueWorkflowEvents(
              tx,
              args.key.workspaceId,
              result.emit!.map((e) => ({
                ...e,
                data: redactor.value(e.data),
                source: { runId: args.key.runId, stepPath: args.key.path },
              })),
            );
          }
        : undefined,
      args.refreshStatus !== false,
      held.claimToken,
    );
    if (!recorded) {
      const row = await loadRecordedAttempt(db, args.key);
      if (row && !(EXECUTING_STATUSES as readonly string[]).includes(row.status)) {
        log.info("late step result ignored: the attempt was recorded already", {
          recorded: row.status,
        });
        return outcomeFromRecord(row);
      }
    }
    return { ok: true, output, ...(result.port ? { port: result.port } : {}) };
  } catch (e) {
    if (controller.signal.aborted && !(e instanceof StepFailure && e.failureClass === "user")) {
      const reason = (controller.signal.reason as Error | undefined)?.message ?? "aborted";
      return await fail(
        new StepFailure(
          reason === "step timed out"
            ? `The step timed out after ${Math.round(stepLimit / 1000)} s`
            : `The step was stopped: ${reason}`,
          reason === "step timed out" ? "operational" : "user",
          { code: reason === "step timed out" ? "STEP_TIMEOUT" : "STOPPED" },
        ),
        config,
      );
    }
    return await fail(e instanceof Error ? e : new Error(String(e)), config);
  } finally {
    clearTimeout(timer);
    clearInterval(watch);
    clearInterval(renew);
    // The handler is done (a script's process group is gone) and, as the returns above await, the
    // attempt is recorded: a cancel that waited for it ends the run now (or, if this fails, the
    // reaper's sweep of stale cancel requests does).
    if (cancelRequested)
      await finalizeCancelledRun(db, rt.config, args.key.runId, now()).catch((e: unknown) =>
        log.error("could not finalize the cancelled run", { err: e }),
      );
  }
}

/**
 * Templates → the concrete config, validated again against the type's schema (pure; the
 * proposal dry run evaluates pure steps with it too).
 */
export function resolveActionConfig(
  type: StepType,
  config: unknown,
  context: TemplateContext,
): { ok: true; config: unknown } | { ok: false; message: string } {
  let resolved: unknown;
  try {
    resolved = resolveStepConfig(type, config, context);
  } catch (e) {
    return {
      ok: false,
      message:
        e instanceof TemplateResolutionError
          ? e.message
          : `The step's config could not be resolved: ${(e as Error).message}`,
    };
  }
  return parseResolvedConfig(type, resolved);
}
