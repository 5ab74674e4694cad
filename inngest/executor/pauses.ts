/**
 * Pauses: a run waiting for an event (`step.waitForEvent`) or for an invoked run (`step.invoke`).
 * A pause is created in the same transaction that handles the SDK response, so any event accepted
 * after that commit can resume it — including one whose transaction read the waits before that
 * commit and committed after it (see `recheckLateWaits`). Resolution is a compare-and-set on
 * `status = 'pending'` taken while holding the run's row lock: of two events racing for one wait,
 * exactly one wins, and a timeout that fires late finds the pause resolved and does nothing.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { executorPauses, type ExecutorPauseKind } from "../../db/schema/executor";
import { inTx, type ExecutorContext, type TxCtx } from "./context";
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

/** A pending wait an event may resume, as `waitCandidatesSql` selects it. */
export interface WaitCandidate {
  id: string;
  run_id: string;
  step_id: string;
  step_name: string | null;
  expression: string | null;
  run_event: Record<string, unknown>;
}

/**
 * The pending, unexpired waits for event `name`, oldest first per run. `late`: only those created
 * since `since` and not among `seen` (the re-check after an event's commit).
 */
export function waitCandidatesSql(
  name: string,
  now: number,
  late?: { since: number; seen: string[] },
) {
  const lateOnly = late
    ? sql` and p.created_at >= ${new Date(late.since).toISOString()}::timestamptz
           and p.id <> all(${sql.param(late.seen)}::text[])`
    : sql``;
  return sql`select p.id, p.run_id, p.step_id, p.step_name, p.expression, r.event as run_event
        from executor_pauses p join executor_runs r on r.id = p.run_id
        where p.kind = 'wait' and p.event_name = ${name} and p.status = 'pending'
          and (p.expires_at is null or p.expires_at > ${new Date(now).toISOString()}::timestamptz)${lateOnly}
        order by p.run_id, p.created_at, p.id`;
}

/**
 * How far before the event's transaction a wait it could not see may have been created: the
 * transaction that registers a wait is short (one SDK answer, no call inside), so a minute is
 * ample even on a starved machine, and it keeps the re-check an index range, not a scan.
 */
const LATE_WAIT_WINDOW_MS = 60_000;

/**
 * Resumes every run waiting for this event whose condition matches. The memo is the raw event.
 * `prefetched`: the candidates, already read in the statement that stored the event.
 */
export async function resumeWaits(
  c: TxCtx,
  event: EventPayload,
  eventId: string,
  prefetched?: WaitCandidate[],
): Promise<void> {
  const candidates =
    prefetched ?? (await execRows<WaitCandidate>(c.tx, waitCandidatesSql(event.name, c.now)));
  await resumeMatching(c, event, eventId, matchingWaits(candidates, event));
  // Postgres only: PGlite has one connection, so no wait can commit while this transaction is open.
  if (c.ex.driver === "postgres") {
    const late = { since: c.now - LATE_WAIT_WINDOW_MS, seen: candidates.map((p) => p.id) };
    c.afterCommit(() => void recheckLateWaits(c.ex, event, eventId, late));
  }
}

/**
 * The waits an event's transaction could not see. Its snapshot was taken when it read the waits; a
 * wait registered after that and committed before this event is invisible to it, and the wait's
 * look-back (inngest/run-driver race-wait) may have run before this event committed, so neither
 * side would find the other and the run would wait out its timeout. Once the event has committed,
 * every wait committed before that is visible: read the ones not seen and resume those that match.
 * A wait committed later finds this event itself (its look-back, or an event sent after it).
 */
async function recheckLateWaits(
  ex: ExecutorContext,
  event: EventPayload,
  eventId: string,
  late: { since: number; seen: string[] },
): Promise<void> {
  try {
    const now = ex.clock.now();
    const found = await execRows<WaitCandidate>(ex.db, waitCandidatesSql(event.name, now, late));
    const hits = matchingWaits(found, event);
    if (!hits.length) return; // the usual case: no transaction opened
    ex.log.debug("event resumed waits registered while it was being stored", {
      eventName: event.name,
      eventId,
      waits: hits.length,
    });
    await inTx(ex, (c) => resumeMatching(c, event, eventId, hits));
  } catch (e) {
    ex.log.error("re-checking waits after an event failed", {
      eventName: event.name,
      eventId,
      err: e,
    });
  }
}

/** The waits whose condition this event meets (`event` = the run's trigger, `async` = this one). */
function matchingWaits(candidates: WaitCandidate[], event: EventPayload): WaitCandidate[] {
  return candidates.filter(
    (p) => !p.expression || matches(p.expression, { event: p.run_event, async: event }),
  );
}

/** Resolves each wait (compare-and-set: one already resolved is skipped) and memoises the event. */
async function resumeMatching(
  c: TxCtx,
  event: EventPayload,
  eventId: string,
  waits: WaitCandidate[],
): Promise<void> {
  for (const p of waits) {
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
