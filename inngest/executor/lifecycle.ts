/**
 * Run creation and the end of a run. Finishing writes the terminal status, drops the run's queued
 * jobs (which also fences any call still in flight), closes its pauses, emits the system events
 * (`inngest/function.finished|failed|cancelled`, which trigger `onFailure` handlers) and resumes an
 * invoking parent — all in the caller's transaction.
 */
import { eq, and, sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { executorExecutions } from "../../db/schema/executor";
import type { TxCtx } from "./context";
import { ingestEvents, type EventPayload } from "./events";
import { claimIdempotency, concurrencyGroups } from "./flow-control";
import { resolveInvoke } from "./pauses";
import { deleteExecutionJobs, enqueue } from "./queue";
import type { RegisteredFunction } from "./registry";
import { loadExecution, type ExecutionState } from "./execution-state";
import { saveExecution } from "./execution-save";
import { ulid } from "../../lib/ids";

export interface NewExecution {
  fn: RegisteredFunction;
  event: EventPayload;
  events?: EventPayload[];
  eventId?: string;
  parent?: { runId: string; stepId: string };
  cronTick?: number;
}

export type CreateExecutionResult = { runId: string } | { skipped: string; duplicateOf?: string };

export async function createExecution(
  c: TxCtx,
  input: NewExecution,
): Promise<CreateExecutionResult> {
  const { fn, event } = input;
  const runId = ulid(c.now);
  const idem = await claimIdempotency(c, fn, event, runId);
  if (idem.duplicateOf) {
    c.ex.log.info("run skipped: idempotency key already used", {
      functionId: fn.id,
      duplicateOf: idem.duplicateOf,
    });
    return { skipped: "idempotency", duplicateOf: idem.duplicateOf };
  }
  const groups = concurrencyGroups(c, fn, event);
  await c.tx.insert(executorExecutions).values({
    id: runId,
    functionId: fn.id,
    status: "queued",
    event,
    events: input.events ?? [event],
    eventId: input.eventId ?? null,
    concurrencyKeys: groups.keys,
    concurrencyLimits: groups.limits,
    parentRunId: input.parent?.runId ?? null,
    parentStepId: input.parent?.stepId ?? null,
    idempotencyKey: idem.key ?? null,
    cronTick: input.cronTick ?? null,
    createdAt: new Date(c.now),
  });
  await enqueue(c, { runId, kind: "call", concurrency: groups });
  if (fn.timeouts.startMs) {
    await enqueue(c, {
      runId,
      kind: "run_timeout",
      runAt: c.now + fn.timeouts.startMs,
      payload: { type: "start" },
    });
  }
  return { runId };
}

export type ExecutionOutcome =
  | { status: "completed"; output: unknown }
  | { status: "failed"; error: Record<string, unknown> }
  | { status: "cancelled"; reason: string };

export const CANCELLED_ERROR = { name: "Error", message: "function cancelled" };

/** Ends the run. The caller still calls `saveExecution(c, s)` (it writes the collected history). */
export async function finishExecution(
  c: TxCtx,
  s: ExecutionState,
  outcome: ExecutionOutcome,
): Promise<void> {
  if (s.finished) return;
  s.finished = true;
  const run = s.row;
  const output = outcome.status === "completed" ? (outcome.output ?? null) : null;
  const error =
    outcome.status === "failed"
      ? outcome.error
      : outcome.status === "cancelled"
        ? { ...CANCELLED_ERROR, reason: outcome.reason }
        : null;
  await c.tx
    .update(executorExecutions)
    .set({
      status: outcome.status,
      output,
      error,
      pending: {},
      endedAt: new Date(),
      ...(s.startedAt ? { startedAt: s.startedAt } : {}),
    })
    .where(and(eq(executorExecutions.id, run.id), sql`status in ('queued', 'running')`));
  await deleteExecutionJobs(c, run.id);
  await execRows(
    c.tx,
    sql`update executor_pauses set status = 'cancelled', resolved_at = now() where run_id = ${run.id} and status = 'pending'`,
  );
  s.history.push({
    type: `run.${outcome.status}`,
    error,
    data: outcome.status === "completed" ? { output } : null,
  });

  const base = {
    function_id: run.functionId,
    run_id: run.id,
    event: run.event,
    ...(run.parentRunId ? { correlation_id: `${run.parentRunId}.${run.parentStepId}` } : {}),
  };
  const system: EventPayload[] = [];
  const ts = c.now;
  if (outcome.status === "completed") {
    system.push({ name: "inngest/function.finished", data: { ...base, result: output }, ts });
  } else if (outcome.status === "failed") {
    system.push({ name: "inngest/function.failed", data: { ...base, error }, ts });
    system.push({ name: "inngest/function.finished", data: { ...base, error }, ts });
  } else {
    system.push({
      name: "inngest/function.cancelled",
      data: { ...base, error: CANCELLED_ERROR },
      ts,
    });
    system.push({
      name: "inngest/function.finished",
      data: { ...base, error: CANCELLED_ERROR },
      ts,
    });
  }
  await ingestEvents(c, system, { internal: true });

  if (run.parentRunId && run.parentStepId) {
    const memo =
      outcome.status === "completed" ? { data: output } : { error: error ?? CANCELLED_ERROR };
    await resolveInvoke(c, run.id, memo);
  }
  c.afterCommit(() => {
    c.ex.notifyExecutionFinished(run.id);
    const log = outcome.status === "failed" ? c.ex.log.warn : c.ex.log.info;
    log(`run ${outcome.status}`, {
      runId: run.id,
      functionId: run.functionId,
      ...(error ? { error } : {}),
    });
  });
}

/** Cancels an active run. Returns false when it was already over (or does not exist). */
export async function cancelExecution(c: TxCtx, runId: string, reason: string): Promise<boolean> {
  const s = await loadExecution(c, runId);
  if (!s) return false;
  await finishExecution(c, s, { status: "cancelled", reason });
  await saveExecution(c, s);
  return true;
}
