import "server-only";
import { sql } from "drizzle-orm";
import { execRows, type DbHandle } from "@/db";
import { ACTIVE_RUN_STATUSES, UNFINISHED_RUN_STATUSES } from "@/lib/workflow/status";
import { metrics } from "./registry";

/**
 * Gauges read from the database at scrape time. Every read is bounded: counts stop at CAP rows
 * (a gauge at CAP means "at least"), ages read one row through an index. The values are the
 * whole installation's (every instance answers the same), unlike the per-process counters.
 */
export const CAP = 10_000;

/** Waiting steps by age: under 1 h, 1–6 h, 6–24 h, over 24 h. */
const AGE_BUCKETS = [
  { label: "lt_1h", maxHours: 1 },
  { label: "1h_6h", maxHours: 6 },
  { label: "6h_24h", maxHours: 24 },
  { label: "gt_24h", maxHours: Number.POSITIVE_INFINITY },
] as const;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const ageSeconds = (from: unknown, now: Date) =>
  from ? Math.max(0, (now.getTime() - new Date(String(from)).getTime()) / 1000) : 0;

export async function refreshDbGauges(handle: DbHandle, now = new Date()): Promise<void> {
  const { db } = handle;
  const m = metrics();
  const started = performance.now();
  const list = (statuses: readonly string[]) =>
    sql.join(
      statuses.map((s) => sql`${s}`),
      sql`, `,
    );
  const byStatus = await execRows<{ status: string; n: unknown }>(
    db,
    sql`select status, count(*) as n from (select status from runs where status in (${list(UNFINISHED_RUN_STATUSES)}) limit ${CAP}) a group by status`,
  );
  m.activeRuns.reset();
  for (const s of UNFINISHED_RUN_STATUSES) m.activeRuns.set({ status: s }, 0);
  for (const r of byStatus) m.activeRuns.set({ status: r.status }, num(r.n));

  const [queued] = await execRows<{ at: unknown }>(
    db,
    sql`select queued_at as at from runs where status = 'queued' order by queued_at limit 1`,
  );
  m.oldestQueued.set(ageSeconds(queued?.at, now));

  // Through the runs that can have waiting steps (partial index), then their steps by run.
  const waiting = await execRows<{ step_type: string; started: unknown }>(
    db,
    sql`select s.step_type, coalesce(s.started_at, s.created_at) as started
        from runs r join run_steps s on s.run_id = r.id
        where r.status in (${list(ACTIVE_RUN_STATUSES)}) and s.status = 'waiting'
        limit ${CAP}`,
  );
  m.waitingGates.reset();
  const counts = new Map<string, number>();
  for (const w of waiting) {
    const hours = ageSeconds(w.started, now) / 3600;
    const bucket = AGE_BUCKETS.find((b) => hours < b.maxHours)!.label;
    const key = `${w.step_type}\u0000${bucket}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of counts) {
    const [stepType, age] = key.split("\u0000");
    m.waitingGates.set({ step_type: stepType!, age: age! }, n);
  }

  const [outbox] = await execRows<{ n: unknown; oldest: unknown }>(
    db,
    sql`select count(*) as n, min(available_at) filter (where available_at <= ${now.toISOString()}::timestamptz) as oldest
        from (select available_at from outbox where delivered_at is null order by available_at limit ${CAP}) o`,
  );
  m.outboxPending.set(num(outbox?.n));
  m.outboxLag.set(ageSeconds(outbox?.oldest, now));

  const [jobs] = await execRows<{ n: unknown; oldest: unknown }>(
    db,
    sql`select count(*) as n, min(run_at) as oldest from (
          select run_at from executor_jobs
          where run_at <= ${now.toISOString()}::timestamptz
            and (lease_until is null or lease_until < ${now.toISOString()}::timestamptz)
          order by run_at limit ${CAP}) j`,
  );
  m.executorDue.set(num(jobs?.n));
  m.executorLag.set(ageSeconds(jobs?.oldest, now));

  m.dbConnections.reset();
  if (handle.driver === "postgres") {
    const states = await execRows<{ state: string | null; n: unknown }>(
      db,
      sql`select coalesce(state, 'unknown') as state, count(*) as n from pg_stat_activity
          where application_name = 'sluice' and datname = current_database() group by 1`,
    );
    for (const s of states) m.dbConnections.set({ state: s.state ?? "unknown" }, num(s.n));
  } else {
    m.dbConnections.set({ state: "idle" }, 1);
  }
  m.dbPing.set((performance.now() - started) / 1000);
}
