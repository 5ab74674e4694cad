/**
 * One run's mutable state inside a transaction: load it locked, record step results, then
 * `saveRun` decides what happens next and writes everything back.
 *
 * The rule that keeps parallel steps from running twice (protocol §2.8): while any planned step,
 * sleep, wait or invoke of the run is pending, discovery is held back; one discovery runs after
 * the last sibling settles. Steps planned in `parallelMode: "race"` discover after each result.
 * Discovery requests are sent with `disable_immediate_execution` while anything is pending, so the
 * SDK reports pending siblings again instead of running them inline (those reports are dropped).
 */
import { eq, sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import {
  executorHistory,
  executorRuns,
  executorSteps,
  type ExecutorPendingSteps,
  type ExecutorRunStatus,
} from "../../db/schema/executor";
import type { TxCtx } from "./context";
import { enqueue } from "./queue";

export interface RunRow {
  id: string;
  functionId: string;
  status: ExecutorRunStatus;
  event: Record<string, unknown>;
  events: Record<string, unknown>[];
  pending: ExecutorPendingSteps;
  stepCount: number;
  concurrencyKeys: string[];
  concurrencyLimits: number[];
  parentRunId: string | null;
  parentStepId: string | null;
  startedAt: Date | null;
  createdAt: Date;
}

export interface HistoryEntry {
  type: string;
  stepId?: string | null;
  stepName?: string | null;
  attempt?: number;
  error?: Record<string, unknown> | null;
  data?: Record<string, unknown> | null;
  startedAt?: Date | null;
  durationMs?: number | null;
}

export interface RunState {
  row: RunRow;
  pending: ExecutorPendingSteps;
  stepCount: number;
  /** A step settled in this transaction (so a discovery may be due). */
  settled: boolean;
  /** A race-mode step settled: discover even though siblings are still pending. */
  raceSettled: boolean;
  /** Set when something else will move the run forward (a retry was scheduled). */
  progressScheduled: boolean;
  /** The run reached a terminal state in this transaction. */
  finished: boolean;
  /** Set when this transaction is the run's first SDK call. */
  startedAt?: Date;
  history: HistoryEntry[];
}

export const ACTIVE_STATUSES: readonly ExecutorRunStatus[] = ["queued", "running"];

export function isActive(status: ExecutorRunStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

/** Locks the run row (`FOR UPDATE`) and returns its state, or undefined if it is gone or over. */
export async function loadRun(c: TxCtx, runId: string): Promise<RunState | undefined> {
  const [row] = await c.tx.select().from(executorRuns).where(eq(executorRuns.id, runId)).for("update");
  if (!row || !isActive(row.status)) return undefined;
  return {
    row: row as RunRow,
    pending: { ...row.pending },
    stepCount: row.stepCount,
    settled: false,
    raceSettled: false,
    progressScheduled: false,
    finished: false,
    history: [],
  };
}

/**
 * Writes a step's memo (exactly once per run and step: a repeat is ignored) and marks the step
 * settled. Returns false when the memo already existed.
 */
export async function memoize(
  c: TxCtx,
  s: RunState,
  step: { id: string; name?: string | null; op: string },
  output: unknown,
): Promise<boolean> {
  const race = s.pending[step.id]?.race === true;
  delete s.pending[step.id];
  const inserted = await c.tx
    .insert(executorSteps)
    .values({ runId: s.row.id, stepId: step.id, name: step.name ?? null, op: step.op, output: output ?? null })
    .onConflictDoNothing()
    .returning({ seq: executorSteps.seq });
  if (!inserted.length) return false;
  s.stepCount++;
  s.settled = true;
  if (race) s.raceSettled = true;
  return true;
}

/** Memoised step ids among `ids` (used to drop re-reported steps that already finished). */
export async function memoizedAmong(c: TxCtx, runId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const res = await execRows<{ step_id: string }>(
    c.tx,
    sql`select step_id from executor_steps where run_id = ${runId} and step_id = any(${sql.param(ids)}::text[])`,
  );
  return new Set(res.map((r) => r.step_id));
}

export function callConcurrency(s: RunState) {
  return { keys: s.row.concurrencyKeys, limits: s.row.concurrencyLimits };
}

/** Queues the run's next discovery call (a no-op if one is already queued). */
export function enqueueDiscovery(c: TxCtx, s: RunState, runAt?: number, attempt = 0): Promise<boolean> {
  return enqueue(c, { runId: s.row.id, kind: "call", stepId: null, attempt, runAt, concurrency: callConcurrency(s) });
}

/**
 * Persists the state: discovery if due, pending set, counters, history. A run with nothing pending,
 * nothing queued and no result is stuck by definition; callers report that as an error before.
 */
export async function saveRun(c: TxCtx, s: RunState): Promise<void> {
  if (!s.finished) {
    const nothingPending = Object.keys(s.pending).length === 0;
    if (s.settled && (nothingPending || s.raceSettled)) await enqueueDiscovery(c, s);
    await c.tx
      .update(executorRuns)
      .set({
        pending: s.pending,
        stepCount: s.stepCount,
        ...(s.startedAt ? { status: "running" as const, startedAt: s.startedAt } : {}),
      })
      .where(eq(executorRuns.id, s.row.id));
  }
  await writeHistory(c, s.row.id, s.history);
}

export async function writeHistory(c: TxCtx, runId: string, entries: HistoryEntry[]): Promise<void> {
  if (!entries.length) return;
  await c.tx.insert(executorHistory).values(
    entries.map((h) => ({
      runId,
      type: h.type,
      stepId: h.stepId ?? null,
      stepName: h.stepName ?? null,
      attempt: h.attempt ?? 0,
      error: h.error ?? null,
      data: h.data ?? null,
      startedAt: h.startedAt ?? null,
      durationMs: h.durationMs ?? null,
    })),
  );
}
