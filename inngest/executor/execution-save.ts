/**
 * Saving an execution's state (execution-state.ts): decides whether a discovery is due — one after
 * the last pending sibling settles, or Inngest's rule with `parallelism: "inngest"` — and writes
 * memos, jobs, history and the run row back in one statement, optionally fenced by the job's lease
 * and the claim-time snapshot (the optimistic path, driver.ts).
 */
import { sql, type SQL } from "drizzle-orm";
import { execRows } from "../../db/client";
import type { ExecutorPendingSteps } from "../../db/schema/executor";
import type { TxCtx } from "./context";
import { discoverLater, type ExecutionState, type Memo } from "./execution-state";
import type { EnqueueInput, Job } from "./queue";

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
