/**
 * Pauses: a run waiting for an event (`step.waitForEvent`) or for an invoked run (`step.invoke`).
 * A pause is created in the same transaction that handles the SDK response, so any event accepted
 * after that commit can resume it. Resolution is a compare-and-set on `status = 'pending'` taken
 * while holding the run's row lock: of two events racing for one wait, exactly one wins, and a
 * timeout that fires late finds the pause resolved and does nothing.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { executorPauses, type ExecutorPauseKind } from "../../db/schema/executor";
import type { TxCtx } from "./context";
import type { EventPayload } from "./events";
import { matches } from "./expressions";
import type { Job } from "./queue";
import { later, loadExecution, memoize, type ExecutionState } from "./execution-state";
import { saveExecution } from "./execution-save";
import { ulid } from "../../lib/ids";

export const INVOKE_TIMEOUT_ERROR = {
  name: "InngestInvokeTimeoutError",
  message: "Timed out waiting for invoked function to complete",
};

export async function createPause(
  c: TxCtx,
  s: ExecutionState,
  p: {
    kind: ExecutorPauseKind;
    stepId: string;
    stepName?: string;
    eventName?: string;
    expression?: string;
    childRunId?: string;
    expiresAt?: number;
  },
): Promise<void> {
  const id = ulid(c.now);
  await c.tx.insert(executorPauses).values({
    id,
    runId: s.row.id,
    stepId: p.stepId,
    stepName: p.stepName ?? null,
    kind: p.kind,
    eventName: p.eventName ?? null,
    expression: p.expression ?? null,
    childRunId: p.childRunId ?? null,
    status: "pending",
    expiresAt: p.expiresAt === undefined ? null : new Date(p.expiresAt),
    createdAt: new Date(c.now),
  });
  if (p.expiresAt !== undefined) {
    later(s, { kind: "pause_timeout", runAt: p.expiresAt, payload: { pauseId: id } });
  }
  s.pending[p.stepId] = {
    op: p.kind === "wait" ? "WaitForEvent" : "InvokeFunction",
    name: p.stepName,
  };
}

/** Compare-and-set pending → `to`. The caller holds the run lock. */
async function settlePause(
  c: TxCtx,
  pauseId: string,
  to: "resolved" | "expired",
  eventId?: string,
): Promise<boolean> {
  const res = await execRows(
    c.tx,
    sql`update executor_pauses set status = ${to}, resolved_event_id = ${eventId ?? null}, resolved_at = now()
        where id = ${pauseId} and status = 'pending' returning id`,
  );
  if (res.length) {
    await execRows(
      c.tx,
      sql`delete from executor_jobs where kind = 'pause_timeout' and payload->>'pauseId' = ${pauseId}`,
    );
  }
  return res.length > 0;
}

/** Resumes every run waiting for this event whose condition matches. The memo is the raw event. */
export async function resumeWaits(c: TxCtx, event: EventPayload, eventId: string): Promise<void> {
  const candidates = await execRows<{
    id: string;
    run_id: string;
    step_id: string;
    step_name: string | null;
    expression: string | null;
    run_event: Record<string, unknown>;
  }>(
    c.tx,
    sql`select p.id, p.run_id, p.step_id, p.step_name, p.expression, r.event as run_event
        from executor_pauses p join executor_runs r on r.id = p.run_id
        where p.kind = 'wait' and p.event_name = ${event.name} and p.status = 'pending'
          and (p.expires_at is null or p.expires_at > ${new Date(c.now).toISOString()}::timestamptz)
        order by p.run_id, p.created_at, p.id`,
  );
  for (const p of candidates) {
    if (p.expression && !matches(p.expression, { event: p.run_event, async: event })) continue;
    const s = await loadExecution(c, p.run_id);
    if (!s) continue;
    if (!(await settlePause(c, p.id, "resolved", eventId))) continue;
    memoize(s, { id: p.step_id, name: p.step_name, op: "WaitForEvent" }, event);
    s.history.push({
      type: "wait.resumed",
      stepId: p.step_id,
      stepName: p.step_name,
      data: { eventId, eventName: event.name },
    });
    await saveExecution(c, s);
  }
}

/** Delivers an invoked run's result to the parent step waiting for it. */
export async function resolveInvoke(
  c: TxCtx,
  childRunId: string,
  memo: { data: unknown } | { error: unknown },
): Promise<void> {
  const [p] = await execRows<{
    id: string;
    run_id: string;
    step_id: string;
    step_name: string | null;
  }>(
    c.tx,
    sql`select id, run_id, step_id, step_name from executor_pauses
        where kind = 'invoke' and child_run_id = ${childRunId} and status = 'pending'`,
  );
  if (!p) return;
  const s = await loadExecution(c, p.run_id);
  if (!s) return;
  if (!(await settlePause(c, p.id, "resolved"))) return;
  memoize(s, { id: p.step_id, name: p.step_name, op: "InvokeFunction" }, memo);
  s.history.push({
    type: "invoke.finished",
    stepId: p.step_id,
    stepName: p.step_name,
    data: { childRunId },
    error: "error" in memo ? (memo.error as Record<string, unknown>) : null,
  });
  await saveExecution(c, s);
}

/** A `pause_timeout` job: the wait or invoke ran out of time (memo null / a timeout error). */
export async function expirePause(c: TxCtx, s: ExecutionState, job: Job): Promise<void> {
  const pauseId = String(job.payload.pauseId ?? "");
  const [p] = await execRows<{
    id: string;
    kind: ExecutorPauseKind;
    step_id: string;
    step_name: string | null;
  }>(
    c.tx,
    sql`select id, kind, step_id, step_name from executor_pauses where id = ${pauseId} and run_id = ${s.row.id}`,
  );
  if (!p || !(await settlePause(c, p.id, "expired"))) return;
  const memo = p.kind === "wait" ? null : { error: INVOKE_TIMEOUT_ERROR };
  memoize(
    s,
    { id: p.step_id, name: p.step_name, op: p.kind === "wait" ? "WaitForEvent" : "InvokeFunction" },
    memo,
  );
  s.history.push({
    type: p.kind === "wait" ? "wait.timed_out" : "invoke.timed_out",
    stepId: p.step_id,
    stepName: p.step_name,
  });
}
