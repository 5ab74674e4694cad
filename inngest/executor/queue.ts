/**
 * The durable job queue in Postgres.
 *
 *   enqueue ──► [due] ──claim (FOR UPDATE SKIP LOCKED, lease)──► worker does the work outside any
 *   transaction ──► result transaction: fenced delete of the job + state changes + next jobs.
 *
 * A lease names its claim with a random token. The result transaction deletes the job only if the
 * token still matches; if the lease was lost (expired and re-claimed elsewhere, or the run was
 * cancelled and its jobs deleted) the whole result is rolled back, so a slow worker can never
 * overwrite the work of the one that took over. Leases are renewed while work is in flight; a
 * crashed worker's leases expire and the jobs run again (at-least-once), with `attempt` bumped.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { ulid } from "../../lib/ids";
import {
  executorJobs,
  type ExecutorJobKind,
  type ExecutorPendingSteps,
} from "../../db/schema/executor";
import type { ExecutorContext, TxCtx } from "./context";

export interface Job {
  id: number;
  runId: string;
  kind: ExecutorJobKind;
  stepId: string | null;
  attempt: number;
  claims: number;
  runAt: number;
  payload: Record<string, unknown>;
  leaseToken: string;
  /** Parallelism "inngest": the job's identity (see EnqueueInput.key). */
  key: string | null;
  /** For calls: the run and its memo (completion order), read at claim time. */
  call?: { run: ClaimedExecution | null; memo: Array<[string, unknown]> };
}

export interface ClaimedExecution {
  status: string;
  functionId: string;
  event: Record<string, unknown>;
  events: Record<string, unknown>[];
  pending: ExecutorPendingSteps;
  stepCount: number;
  startedAt: number | null;
  /** Parallelism "inngest": ForceStepPlan, sent as `disable_immediate_execution`. */
  forceStepPlan?: boolean;
  concurrencyKeys: string[];
  concurrencyLimits: number[];
}

export interface EnqueueInput {
  runId: string;
  kind: ExecutorJobKind;
  stepId?: string | null;
  attempt?: number;
  /** Schedule-clock ms; default now. */
  runAt?: number;
  payload?: Record<string, unknown>;
  /** Only calls count against concurrency limits. */
  concurrency?: { keys: string[]; limits: number[] };
  /** Insert the job already leased with this token (hand-off to the worker that queued it). */
  leaseToken?: string;
  /**
   * Parallelism "inngest": the job's identity, like Inngest's queue job id (`plan:<step>`,
   * `discover:<step>`, `coalesced:<key>`). A keyed discovery escapes the one-discovery-per-run index.
   */
  key?: string;
  /** With `key`: enqueue only if the run never enqueued this key before (remembered for its lifetime). */
  once?: boolean;
}

/** The lease was lost: the job was re-claimed elsewhere or deleted (run cancelled/finished). */
export class LostLeaseError extends Error {
  override name = "LostLeaseError";
}

/** Inserts a job; a duplicate (same discovery / same targeted step already queued) is a no-op. */
export async function enqueue(c: TxCtx, job: EnqueueInput): Promise<boolean> {
  const runAt = job.runAt ?? c.now;
  const inserted = await c.tx
    .insert(executorJobs)
    .values({
      runId: job.runId,
      kind: job.kind,
      stepId: job.stepId ?? null,
      attempt: job.attempt ?? 0,
      runAt: new Date(runAt),
      payload: job.payload ?? {},
      concurrencyKeys: job.concurrency?.keys ?? [],
      concurrencyLimits: job.concurrency?.limits ?? [],
    })
    .onConflictDoNothing()
    .returning({ id: executorJobs.id });
  if (inserted.length) c.afterCommit(() => c.ex.wake(runAt));
  return inserted.length > 0;
}

/** A claim's lease token: unique per claim, compared on every write the claimant makes. */
export function newLeaseToken(): string {
  return ulid();
}

export async function deleteExecutionJobs(c: TxCtx, runId: string): Promise<void> {
  await execRows(c.tx, sql`delete from executor_jobs where run_id = ${runId}`);
}

// Calls also bring their run and memo, so a step costs no extra read before the SDK request.
const RETURNING =
  sql.raw(`returning j.id, j.run_id, j.kind, j.step_id, j.attempt, j.claims, j.payload,
  (extract(epoch from j.run_at) * 1000)::float8 as run_at, j.lease_token, j.job_key,
  case when j.kind = 'call' then (
    select jsonb_build_object('status', r.status, 'functionId', r.function_id, 'event', r.event,
                              'events', r.events, 'pending', r.pending, 'stepCount', r.step_count,
                              'startedAt', (extract(epoch from r.started_at) * 1000)::float8, 'forceStepPlan', r.force_step_plan,
                              'concurrencyKeys', to_jsonb(r.concurrency_keys), 'concurrencyLimits', to_jsonb(r.concurrency_limits))
    from executor_runs r where r.id = j.run_id) end as run,
  case when j.kind = 'call' then (
    select coalesce(jsonb_agg(jsonb_build_array(s.step_id, s.output) order by s.seq), '[]'::jsonb)
    from executor_steps s where s.run_id = j.run_id) end as memo`);

type JobRow = {
  id: number | string;
  run_id: string;
  kind: ExecutorJobKind;
  step_id: string | null;
  attempt: number;
  claims: number;
  payload: Record<string, unknown>;
  run_at: number;
  lease_token: string;
  job_key: string | null;
  run: ClaimedExecution | null;
  memo: Array<[string, unknown]> | null;
};

const toJob = (r: JobRow): Job => ({
  id: Number(r.id),
  runId: r.run_id,
  kind: r.kind,
  stepId: r.step_id,
  attempt: r.attempt,
  claims: r.claims,
  runAt: Number(r.run_at),
  payload: r.payload ?? {},
  leaseToken: r.lease_token,
  key: r.job_key ?? null,
  ...(r.kind === "call" ? { call: { run: r.run, memo: r.memo ?? [] } } : {}),
});

/**
 * Leases up to `limit` due jobs that count against no concurrency limit. A job whose earlier lease
 * was lost (claims > 0) comes back with attempt + 1.
 */
export async function claimJobs(ex: ExecutorContext, limit: number): Promise<Job[]> {
  if (limit <= 0) return [];
  const token = newLeaseToken();
  const res = await execRows<JobRow>(
    ex.db,
    sql`with picked as (
          select id from executor_jobs
          where run_at <= ${new Date(ex.clock.now()).toISOString()}::timestamptz
            and (lease_until is null or lease_until < now())
            and cardinality(concurrency_keys) = 0
          order by run_at, id
          limit ${limit}
          for update skip locked
        )
        update executor_jobs j
        set lease_token = ${token},
            lease_until = now() + make_interval(secs => ${ex.opts.leaseMs / 1000}),
            attempt = j.attempt + (case when j.claims > 0 then 1 else 0 end),
            claims = j.claims + 1
        from picked where j.id = picked.id
        ${RETURNING}`,
  );
  return res.map(toJob).sort((a, b) => a.runAt - b.runAt || a.id - b.id);
}

/**
 * Leases due calls of concurrency-limited runs while their groups have room. Candidates in full
 * groups are filtered out first (so they do not block other work); then, holding a transaction
 * advisory lock per group (sorted, so two executors cannot deadlock), the leased count is taken
 * again and jobs are leased in queue order up to each group's limit.
 */
export async function claimLimitedJobs(ex: ExecutorContext, limit: number): Promise<Job[]> {
  if (limit <= 0) return [];
  const token = newLeaseToken();
  const nowIso = new Date(ex.clock.now()).toISOString();
  return ex.db.transaction(async (tx) => {
    const candidates = await execRows<{ id: number | string; keys: string[]; limits: number[] }>(
      tx,
      sql`select j.id, j.concurrency_keys as keys, j.concurrency_limits as limits
          from executor_jobs j
          where j.run_at <= ${nowIso}::timestamptz
            and (j.lease_until is null or j.lease_until < now())
            and cardinality(j.concurrency_keys) > 0
            and not exists (
              select 1 from unnest(j.concurrency_keys, j.concurrency_limits) as c(k, lim)
              where (select count(*) from executor_jobs a
                     where a.lease_until >= now() and c.k = any(a.concurrency_keys)) >= c.lim)
          order by j.run_at, j.id
          limit ${limit * 4}
          for update of j skip locked`,
    );
    if (!candidates.length) return [];
    const keys = [...new Set(candidates.flatMap((c) => c.keys))].sort();
    await execRows(
      tx,
      sql`select pg_advisory_xact_lock(hashtextextended(k, 7041776)) from unnest(${sql.param(keys)}::text[]) as k order by k`,
    );
    const active = await execRows<{ k: string; n: number }>(
      tx,
      sql`select k, count(*)::int as n from executor_jobs a, unnest(a.concurrency_keys) as k
          where a.lease_until >= now() and k = any(${sql.param(keys)}::text[]) group by k`,
    );
    const used = new Map(active.map((a) => [a.k, Number(a.n)]));
    const chosen: number[] = [];
    for (const c of candidates) {
      if (chosen.length >= limit) break;
      const fits = c.keys.every((k, i) => (used.get(k) ?? 0) < (c.limits[i] ?? Infinity));
      if (!fits) continue;
      for (const k of c.keys) used.set(k, (used.get(k) ?? 0) + 1);
      chosen.push(Number(c.id));
    }
    if (!chosen.length) return [];
    const res = await execRows<JobRow>(
      tx,
      sql`update executor_jobs j
          set lease_token = ${token},
              lease_until = now() + make_interval(secs => ${ex.opts.leaseMs / 1000}),
              attempt = j.attempt + (case when j.claims > 0 then 1 else 0 end),
              claims = j.claims + 1
          where j.id = any(${sql.param(chosen)}::bigint[])
          ${RETURNING}`,
    );
    return res.map(toJob);
  });
}

/**
 * Extends the leases of jobs still in flight. A job whose row is locked is skipped: its result
 * transaction is completing it right now, and waiting for it while holding the other rows could
 * close a deadlock cycle (a lease is renewed every third of its length, so one skip is harmless).
 */
export async function renewLeases(ex: ExecutorContext, jobs: Job[]): Promise<void> {
  if (!jobs.length) return;
  await execRows(
    ex.db,
    sql`update executor_jobs set lease_until = now() + make_interval(secs => ${ex.opts.leaseMs / 1000})
        where id in (select id from executor_jobs
                     where id = any(${sql.param(jobs.map((j) => j.id))}::bigint[])
                       and lease_token = any(${sql.param(jobs.map((j) => j.leaseToken))}::text[])
                     for update skip locked)`,
  );
}

/** Puts a job back in the queue at `runAt` after an unexpected failure of its handler. */
export async function releaseJob(ex: ExecutorContext, job: Job, runAt: number): Promise<void> {
  await execRows(
    ex.db,
    sql`update executor_jobs set lease_until = null, lease_token = null, claims = 0,
          run_at = ${new Date(runAt).toISOString()}::timestamptz
        where id = ${job.id} and lease_token = ${job.leaseToken}`,
  );
}

/** Clears every lease (PGlite start-up: no other process can hold one). */
export async function releaseAllLeases(ex: ExecutorContext): Promise<number> {
  const res = await execRows(
    ex.db,
    sql`update executor_jobs set lease_until = null where lease_until is not null returning id`,
  );
  return res.length;
}

/** Schedule-clock ms of the earliest job not yet due, for the worker's next wake-up. */
export async function nextDueAt(ex: ExecutorContext): Promise<number | undefined> {
  const res = await execRows<{ at: number | null }>(
    ex.db,
    sql`select (extract(epoch from min(run_at)) * 1000)::float8 as at from executor_jobs where lease_until is null`,
  );
  const at = res[0]?.at;
  return at === null || at === undefined ? undefined : Number(at);
}

/**
 * Housekeeping: drops expired event-id and idempotency claims and cron claims older than a week.
 * (Runs, steps, history and events are kept: their retention belongs to the app's policy.)
 */
export async function pruneExpired(ex: ExecutorContext): Promise<void> {
  const now = new Date(ex.clock.now()).toISOString();
  await execRows(ex.db, sql`delete from executor_event_ids where expires_at < ${now}::timestamptz`);
  await execRows(
    ex.db,
    sql`delete from executor_idempotency where expires_at < ${now}::timestamptz`,
  );
  await execRows(
    ex.db,
    sql`delete from executor_cron_claims where tick_at < ${now}::timestamptz - interval '7 days'`,
  );
}
