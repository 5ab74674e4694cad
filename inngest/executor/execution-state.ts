/**
 * One execution's mutable state inside a transaction: `loadExecution` locks it, handlers record step results
 * and follow-up jobs on it, and `saveExecution` decides what happens next and writes everything back in
 * one statement (memos, jobs, history, run row) — the hot path costs two statements per step.
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
import { sql, type SQL } from "drizzle-orm";
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

/**
 * Inngest's `maybeEnqueueDiscoveryStep` for each result saved in this transaction: a discovery only
 * if nothing is pending or the step is race-mode; race completions each get their own job (per
 * step id), others the one coalesced job of their batch; every discovery resets ForceStepPlan.
 */
function discoverLikeInngest(s: ExecutionState): void {
  const settled = s.settledSteps;
  s.settledSteps = [];
  if (s.finished) return;
  for (const st of settled) {
    if (st.hasPending && !st.race) continue;
    s.forceStepPlan = false;
    const key = !st.race && st.ck ? `coalesced:${st.ck}` : `discover:${st.stepId}`;
    discoverLater(s, undefined, 0, { key, once: true });
  }
}

/** Steps memoised so far, including this transaction's. */
export function stepCount(s: ExecutionState): number {
  return s.row.stepCount + s.memos.length;
}

const json = (v: unknown) => sql`${JSON.stringify(v ?? null)}::jsonb`;
const ts = (ms: number | Date | null | undefined) =>
  ms === null || ms === undefined
    ? sql`null::timestamptz`
    : sql`${new Date(ms).toISOString()}::timestamptz`;
const list = (items: SQL[]) => sql.join(items, sql`, `);

/** What the optimistic save checks: the job's lease and the run as it was when the job was claimed. */
export interface SaveGuard {
  job: Job;
  stepCount: number;
  pending: ExecutorPendingSteps;
}

/**
 * Writes the state back in one statement: queued memos, jobs and history, and the run row (pending
 * set, step count, start). Queues the discovery first if one is due. A finished run's row was
 * already written by `finishExecution`; only its memos, history and step count remain.
 *
 * With a `guard` (the optimistic path, no transaction and no lock — see driver.ts) the same
 * statement also deletes the job, and applies nothing unless the job's lease still holds and the
 * run still has the claim-time step count and pending set. `saved: false` then means "redo it
 * under the lock".
 */
export async function saveExecution(
  c: TxCtx,
  s: ExecutionState,
  guard?: SaveGuard,
): Promise<{
  saved: boolean;
  handedOff?: { jobId: number; memos: Memo[]; stepId: string | null };
}> {
  // Pending race-mode steps never hold a discovery back: the SDK may no longer await them (a race
  // already decided, e.g. a wait whose look-back found the event), and a discovery made meanwhile
  // carries disable_immediate_execution, so it cannot run them twice.
  if (s.parallelism === "inngest") {
    discoverLikeInngest(s);
  } else {
    const onlyRacePending = Object.values(s.pending).every((p) => p.race);
    if (!s.finished && s.settled && (onlyRacePending || s.raceSettled)) discoverLater(s);
  }
  if (s.finished) s.jobs = [];
  // A key enqueued twice in one transaction is one job (the key table sees it once).
  const seen = new Set<string>();
  s.jobs = s.jobs.filter(
    (j) => !j.once || !j.key || (!seen.has(j.key) && Boolean(seen.add(j.key))),
  );
  // The next call this worker may make at once: the discovery, or — when the answer planned one
  // lone step and nothing else (a race-tagged step after a fan-out, see inngest/run-driver sid) —
  // that step's targeted call, which saves a trip through the queue per step.
  const dueCall = (j: EnqueueInput) => j.kind === "call" && (j.runAt ?? c.now) <= c.now;
  const handoff = s.handoffToken
    ? (s.jobs.find((j) => dueCall(j) && !j.stepId) ??
      (s.jobs.length === 1 && dueCall(s.jobs[0]!) && s.jobs[0]!.stepId ? s.jobs[0] : undefined))
    : undefined;
  if (handoff && !s.row.concurrencyKeys.length) handoff.leaseToken = s.handoffToken;

  // Inserts read their rows from VALUES (explicit casts) so the optimistic form can filter them. They
  // read `done` (which implies `upd`): that runs the job's delete first, so a new discovery does not
  // collide with the one being completed on the one-discovery-per-run index.
  const onlyIf = guard ? sql` where exists (select 1 from done)` : sql``;
  const ctes: SQL[] = [];
  if (s.memos.length) {
    ctes.push(
      sql`m as (insert into executor_steps (run_id, step_id, name, op, output) select * from (values ${list(
        s.memos.map(
          (m) =>
            sql`(${s.row.id}::text, ${m.stepId}::text, ${m.name}::text, ${m.op}::text, ${json(m.output)})`,
        ),
      )}) v${onlyIf} on conflict do nothing returning 1)`,
    );
  }
  const once = s.jobs.filter((j) => j.once && j.key);
  if (once.length) {
    // Job identities remembered for the run's lifetime: a job whose key is not new is not inserted.
    ctes.push(
      sql`k as (insert into executor_job_keys (run_id, key) select * from (values ${list(
        once.map((j) => sql`(${s.row.id}::text, ${j.key}::text)`),
      )}) v${onlyIf} on conflict do nothing returning key)`,
    );
  }
  if (s.jobs.length) {
    const lease = sql`now() + make_interval(secs => ${c.ex.opts.leaseMs / 1000})`;
    const conditions = [
      ...(guard ? [sql`exists (select 1 from done)`] : []),
      ...(once.length ? [sql`(not v.once or v.job_key in (select key from k))`] : []),
    ];
    const where = conditions.length ? sql` where ${sql.join(conditions, sql` and `)}` : sql``;
    ctes.push(sql`j as (insert into executor_jobs (run_id, kind, step_id, attempt, run_at, payload, concurrency_keys,
                        concurrency_limits, lease_token, lease_until, claims, job_key)
                        select run_id, kind, step_id, attempt, run_at, payload, concurrency_keys, concurrency_limits,
                               lease_token, lease_until, claims, job_key from (values ${list(
                                 s.jobs.map(
                                   (j) =>
                                     sql`(${j.runId}::text, ${j.kind}::text, ${j.stepId ?? null}::text, ${j.attempt ?? 0}::int, ${ts(j.runAt ?? c.now)},
               ${json(j.payload ?? {})}, ${sql.param(j.concurrency?.keys ?? [])}::text[], ${sql.param(j.concurrency?.limits ?? [])}::int[],
               ${j.leaseToken ?? null}::text, ${j.leaseToken ? lease : sql`null::timestamptz`}, ${j.leaseToken ? 1 : 0}::int,
               ${j.key ?? null}::text, ${Boolean(j.once && j.key)}::boolean)`,
                                 ),
                               )}) v(run_id, kind, step_id, attempt, run_at, payload, concurrency_keys, concurrency_limits,
                                     lease_token, lease_until, claims, job_key, once)${where}
                        on conflict do nothing returning id, lease_token)`);
  }
  if (s.history.length) {
    ctes.push(sql`h as (insert into executor_history (run_id, type, step_id, step_name, attempt, error, data, started_at, duration_ms)
                        select * from (values ${list(
                          s.history.map(
                            (h) =>
                              sql`(${s.row.id}::text, ${h.type}::text, ${h.stepId ?? null}::text, ${h.stepName ?? null}::text, ${h.attempt ?? 0}::int,
               ${json(h.error)}, ${json(h.data)}, ${ts(h.startedAt)}, ${h.durationMs ?? null}::int)`,
                          ),
                        )}) v${onlyIf})`);
  }
  const started = s.startedAt ? sql`, status = 'running', started_at = ${ts(s.startedAt)}` : sql``;
  const handed = handoff?.leaseToken
    ? sql`(select id from j where lease_token is not null limit 1)::float8`
    : sql`null::float8`;

  let statement: SQL;
  if (guard) {
    // Under the guard no other transaction touched the run, so every memo is new. The statement
    // takes the run's and the job's locks with SKIP LOCKED: it never waits while holding one of
    // them (that could close a deadlock cycle with a transaction that holds the run); if either is
    // taken, nothing is applied and the caller redoes the work under the lock.
    const upd = sql`upd as (update executor_runs set step_count = step_count + ${s.memos.length}::int,
                              pending = ${json(s.pending)}${started}
                            where id = ${s.row.id} and status in ('queued', 'running')
                              and step_count = ${guard.stepCount}::int and pending = ${json(guard.pending)}
                              and exists (select 1 from executor_runs where id = ${s.row.id} for update skip locked)
                              and exists (select 1 from executor_jobs
                                          where id = ${guard.job.id} and lease_token = ${guard.job.leaseToken} for update skip locked)
                            returning id)`;
    const done = sql`done as (delete from executor_jobs where id = ${guard.job.id} and lease_token = ${guard.job.leaseToken}
                              and exists (select 1 from upd) returning id)`;
    statement = sql`with ${list([upd, done, ...ctes])} select (select count(*) from upd)::int as saved, ${handed} as handed`;
  } else {
    const added = s.memos.length ? sql`(select count(*) from m)` : sql`0`;
    const inngest =
      s.parallelism === "inngest"
        ? sql`, inngest_pending = ${sql.param([...s.pendingSet])}::text[], force_step_plan = ${s.forceStepPlan}`
        : sql``;
    const set = s.finished
      ? sql`step_count = step_count + ${added}`
      : sql`step_count = step_count + ${added}, pending = ${json(s.pending)}${started}${inngest}`;
    const update = sql`update executor_runs set ${set} where id = ${s.row.id} returning 1 as saved, ${handed} as handed`;
    statement = ctes.length ? sql`with ${list(ctes)} ${update}` : update;
  }
  const [res] = await execRows<{ saved: number; handed: number | null }>(c.tx, statement);
  if (guard && Number(res?.saved) !== 1) return { saved: false };

  const others = s.jobs.filter((j) => !j.leaseToken);
  if (others.length) {
    const wakeAt = Math.min(...others.map((j) => j.runAt ?? c.now));
    c.afterCommit(() => c.ex.wake(wakeAt));
  }
  const memos = s.memos;
  s.memos = [];
  s.jobs = [];
  s.history = [];
  return res?.handed
    ? {
        saved: true,
        handedOff: { jobId: Number(res.handed), memos, stepId: handoff?.stepId ?? null },
      }
    : { saved: true };
}
