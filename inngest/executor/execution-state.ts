/**
 * One execution's mutable state inside a transaction: `loadExecution` locks it, handlers record step results
 * and follow-up jobs on it, and `saveExecution` (execution-save.ts) decides what happens next and writes
 * everything back in one statement (memos, jobs, history, run row) — the hot path costs two statements
 * per step.
 *
 * The rule that keeps parallel steps from running twice (protocol §2.8): while any planned step,
 * sleep, wait or invoke of the run is pending, discovery is held back; one discovery runs after
 * the last sibling settles. Steps planned in `parallelMode: "race"` discover after each result.
 * Discovery requests are sent with `disable_immediate_execution` while anything is pending, so the
 * SDK reports pending siblings again instead of running them inline (those reports are dropped).
 *
 * With the option `parallelism: "inngest"` the rules are the real Inngest server's instead (v1.43,
 * README "Parallelism modes"): a pending-steps *set* replaced by each response that plans several
 * steps, a discovery after a result only when that set is empty or the step is race-mode (each
 * race completion its own discovery job, several in flight at once), ForceStepPlan set by a
 * multi-step response and reset by every discovery, and job identities remembered for the run's
 * lifetime (`executor_job_keys`). It hangs or repeats exactly where Inngest does; do not fix it here.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import type { ExecutorPendingSteps, ExecutorExecutionStatus } from "../../db/schema/executor";
import type { TxCtx } from "./context";
import { canonicalize } from "./jcs";
import type { Parallelism } from "./options";
import { LostLeaseError, type EnqueueInput, type Job } from "./queue";

export interface ExecutionRow {
  id: string;
  functionId: string;
  status: ExecutorExecutionStatus;
  event: Record<string, unknown>;
  events: Record<string, unknown>[];
  pending: ExecutorPendingSteps;
  stepCount: number;
  concurrencyKeys: string[];
  concurrencyLimits: number[];
  parentRunId: string | null;
  parentStepId: string | null;
  startedAt: number | null;
  /** Parallelism "inngest" only (see the module comment). */
  inngestPending: string[];
  forceStepPlan: boolean;
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

export interface Memo {
  stepId: string;
  name: string | null;
  op: string;
  output: unknown;
}

/** Parallelism "inngest": a step result saved in this transaction, and what Inngest saw then. */
export interface SettledStep {
  stepId: string;
  /** The pending set was not empty after saving it (Inngest's `hasPendingSteps`). */
  hasPending: boolean;
  race: boolean;
  /** Coalesce key of the multi-step response that planned it, if any. */
  ck?: string;
}

export interface ExecutionState {
  row: ExecutionRow;
  parallelism: Parallelism;
  pending: ExecutorPendingSteps;
  /** Parallelism "inngest": Inngest's pending-steps set, ForceStepPlan, results saved here. */
  pendingSet: Set<string>;
  forceStepPlan: boolean;
  settledSteps: SettledStep[];
  /**
   * Parallelism "inngest": outputs already memoised for the step ids of the response being applied
   * (a duplicate result keeps the first output; whether it matches decides `hasPending`, as in
   * Inngest's saveResponse.lua).
   */
  memoOutputs?: Map<string, unknown>;
  /** A step settled in this transaction (so a discovery may be due). */
  settled: boolean;
  /** A race-mode step settled: discover even though siblings are still pending. */
  raceSettled: boolean;
  /** The run reached a terminal state in this transaction. */
  finished: boolean;
  /** Set when this transaction is the run's first SDK call. */
  startedAt?: Date;
  history: HistoryEntry[];
  /** Writes deferred to `saveExecution`. */
  memos: Memo[];
  jobs: EnqueueInput[];
  /**
   * Set by the call path: a discovery due now may be inserted already leased with this token and
   * run by the same worker straight away (no wake-up, no claim, no re-read of the memo).
   */
  handoffToken?: string;
}

export const ACTIVE_EXECUTION_STATUSES: readonly ExecutorExecutionStatus[] = ["queued", "running"];

export function isActiveExecution(status: ExecutorExecutionStatus): boolean {
  return ACTIVE_EXECUTION_STATUSES.includes(status);
}

const EXECUTION_COLUMNS =
  sql.raw(`r.id, r.function_id, r.status, r.event, r.events, r.pending, r.step_count,
  r.concurrency_keys, r.concurrency_limits, r.parent_run_id, r.parent_step_id,
  r.inngest_pending, r.force_step_plan,
  (extract(epoch from r.started_at) * 1000)::float8 as started_at`);

type ExecutionRowRaw = {
  id: string;
  function_id: string;
  status: ExecutorExecutionStatus;
  event: Record<string, unknown>;
  events: Record<string, unknown>[];
  pending: ExecutorPendingSteps;
  step_count: number;
  concurrency_keys: string[];
  concurrency_limits: number[];
  parent_run_id: string | null;
  parent_step_id: string | null;
  started_at: number | null;
  inngest_pending: string[] | null;
  force_step_plan: boolean | null;
  job_done?: number;
};

function toState(r: ExecutionRowRaw, parallelism: Parallelism): ExecutionState {
  const row: ExecutionRow = {
    id: r.id,
    functionId: r.function_id,
    status: r.status,
    event: r.event,
    events: r.events,
    pending: r.pending ?? {},
    stepCount: Number(r.step_count),
    concurrencyKeys: r.concurrency_keys ?? [],
    concurrencyLimits: (r.concurrency_limits ?? []).map(Number),
    parentRunId: r.parent_run_id,
    parentStepId: r.parent_step_id,
    startedAt: r.started_at === null ? null : Number(r.started_at),
    inngestPending: r.inngest_pending ?? [],
    forceStepPlan: Boolean(r.force_step_plan),
  };
  return stateFromSnapshot(row, parallelism);
}

/** A run state built from a row (read under lock, or a claim-time snapshot on the optimistic path). */
export function stateFromSnapshot(
  row: ExecutionRow,
  parallelism: Parallelism = "coalesced",
): ExecutionState {
  return {
    row,
    parallelism,
    pending: { ...row.pending },
    pendingSet: new Set(row.inngestPending),
    forceStepPlan: row.forceStepPlan,
    settledSteps: [],
    settled: false,
    raceSettled: false,
    finished: false,
    history: [],
    memos: [],
    jobs: [],
  };
}

/** Locks the run row (`FOR UPDATE`) and returns its state, or undefined if it is gone or over. */
export async function loadExecution(c: TxCtx, runId: string): Promise<ExecutionState | undefined> {
  const [r] = await execRows<ExecutionRowRaw>(
    c.tx,
    sql`select ${EXECUTION_COLUMNS} from executor_runs r where r.id = ${runId} for update`,
  );
  return r && isActiveExecution(r.status) ? toState(r, c.ex.opts.parallelism) : undefined;
}

/**
 * The first statements of a job's result transaction: lock the job's run, then delete the job if
 * this worker still holds its lease. Throws LostLeaseError when the lease was lost (the job was
 * re-claimed or deleted — the run was cancelled): the transaction then rolls back.
 *
 * Lock order: a run row before any of its job rows, in every transaction that takes both. A
 * transaction holding the run inserts its next discovery, and that insert waits for whoever is
 * deleting the previous one; deleting a job before locking its run made that a deadlock on
 * Postgres whenever parallel siblings settled together (issue 11).
 */
export async function completeJobAndLoadExecution(
  c: TxCtx,
  job: Job,
): Promise<ExecutionState | undefined> {
  const [r] = await execRows<ExecutionRowRaw>(
    c.tx,
    sql`select ${EXECUTION_COLUMNS} from executor_runs r where r.id = ${job.runId} for update`,
  );
  const done = await execRows(
    c.tx,
    sql`delete from executor_jobs where id = ${job.id} and lease_token = ${job.leaseToken} returning id`,
  );
  // No run row: nothing left to protect, whether or not the delete happened.
  if (!r) return undefined;
  if (done.length !== 1) throw new LostLeaseError(`lease on job ${job.id} (${job.kind}) was lost`);
  return isActiveExecution(r.status) ? toState(r, c.ex.opts.parallelism) : undefined;
}

/**
 * Records a step's memo (written at save, exactly once per run and step) and settles the step.
 * `via`: what the call that produced it knew (its op's parallel mode, its job's coalesce key).
 */
export function memoize(
  s: ExecutionState,
  step: { id: string; name?: string | null; op: string },
  output: unknown,
  via: { race?: boolean; ck?: string } = {},
): void {
  if (s.memos.some((m) => m.stepId === step.id)) return;
  if (s.parallelism === "inngest") settleInngest(s, step.id, output ?? null, via);
  if (s.pending[step.id]?.race) s.raceSettled = true;
  delete s.pending[step.id];
  s.memos.push({ stepId: step.id, name: step.name ?? null, op: step.op, output: output ?? null });
  s.settled = true;
}

/**
 * Inngest's SaveStep (saveResponse.lua): a new result leaves the pending set (SREM); a duplicate
 * keeps the first output and leaves the set alone — "still pending" is then the set's size if the
 * outputs match, false if they differ. The discovery decision is taken at save (`saveExecution`).
 */
function settleInngest(
  s: ExecutionState,
  stepId: string,
  output: unknown,
  via: { race?: boolean; ck?: string },
): void {
  const entry = s.pending[stepId];
  let hasPending: boolean;
  if (s.memoOutputs?.has(stepId)) {
    const same = canonicalize(s.memoOutputs.get(stepId)) === canonicalize(output);
    hasPending = same && s.pendingSet.size > 0;
  } else {
    s.pendingSet.delete(stepId);
    hasPending = s.pendingSet.size > 0;
  }
  s.settledSteps.push({
    stepId,
    hasPending,
    race: Boolean(via.race || entry?.race),
    ...((entry?.ck ?? via.ck) ? { ck: entry?.ck ?? via.ck } : {}),
  });
}

/** Queues a job for this run (inserted at save; a duplicate queued discovery/step is a no-op). */
export function later(s: ExecutionState, job: Omit<EnqueueInput, "runId">): void {
  s.jobs.push({ ...job, runId: s.row.id });
}

/** Memoised step ids among `ids` (used to drop re-reported steps that already finished). */
export async function memoizedAmong(c: TxCtx, runId: string, ids: string[]): Promise<Set<string>> {
  return new Set((await memoOutputsAmong(c, runId, ids)).keys());
}

/** Memoised outputs of the steps among `ids`. */
export async function memoOutputsAmong(
  c: TxCtx,
  runId: string,
  ids: string[],
): Promise<Map<string, unknown>> {
  if (!ids.length) return new Map();
  const res = await execRows<{ step_id: string; output: unknown }>(
    c.tx,
    sql`select step_id, output from executor_steps where run_id = ${runId} and step_id = any(${sql.param(ids)}::text[])`,
  );
  return new Map(res.map((r) => [r.step_id, r.output]));
}

/** Job keys among `keys` this run has enqueued before (parallelism "inngest"). */
export async function knownJobKeys(c: TxCtx, runId: string, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const res = await execRows<{ key: string }>(
    c.tx,
    sql`select key from executor_job_keys where run_id = ${runId} and key = any(${sql.param(keys)}::text[])`,
  );
  return new Set(res.map((r) => r.key));
}

export function callConcurrency(s: ExecutionState) {
  return { keys: s.row.concurrencyKeys, limits: s.row.concurrencyLimits };
}

/**
 * Queues the run's next discovery call. Parallelism "inngest" needs a `key` (the job's identity):
 * keyed discoveries of one run may be queued and in flight together.
 */
export function discoverLater(
  s: ExecutionState,
  runAt?: number,
  attempt = 0,
  key?: { key: string; once: boolean },
): void {
  later(s, {
    kind: "call",
    stepId: null,
    attempt,
    runAt,
    concurrency: callConcurrency(s),
    ...(key ?? {}),
  });
}

/** Steps memoised so far, including this transaction's. */
export function stepCount(s: ExecutionState): number {
  return s.row.stepCount + s.memos.length;
}
