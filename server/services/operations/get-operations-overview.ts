import "server-only";
import { sql } from "drizzle-orm";
import { execRows } from "@/db/client";
import {
  GetOperationsInput,
  OPERATIONS_MAX_WORKFLOWS,
  OPERATIONS_RANGE_HOURS,
  type OperationsOverview,
} from "@/lib/schemas/operations";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

const HOUR_MS = 3_600_000;
/** Statuses a failure rate counts: the run did not do its job. */
const FAILED = sql`('failed', 'timed_out')`;
/** Deliveries that did not become runs for a reason worth alerting on (not duplicates or skips). */
const REJECTED = sql`('rejected', 'rate_limited', 'too_large', 'failed')`;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const rate = (failed: number, runs: number) => (runs ? failed / runs : 0);
const iso = (v: unknown) =>
  v === null || v === undefined ? null : new Date(v as string).toISOString();

/**
 * The operations page (admins): runs and failures per hour, p50/p95 duration per workflow, the
 * queue, the oldest waiting gate and webhook rejects, for the last 24 hours or 7 days. Every query
 * is filtered by workspace and bounded by the range (indexes on workspace + created/received).
 * Editor test runs are left out, as in the run lists.
 */
export async function getOperationsOverview({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input?: unknown;
}): Promise<OperationsOverview> {
  const ws = requireRole(ctx, "admin");
  const parsed = GetOperationsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Operations");
  const { range } = parsed.data;
  const hours = OPERATIONS_RANGE_HOURS[range];
  // Whole hours, so a bucket never straddles two hours of the clock.
  const to = new Date(Math.ceil(ctx.now().getTime() / HOUR_MS) * HOUR_MS);
  const from = new Date(to.getTime() - hours * HOUR_MS);
  const db = ctx.db;
  const bucket = (col: ReturnType<typeof sql>) =>
    sql`floor(extract(epoch from (${col} - ${from.toISOString()}::timestamptz)) / 3600)::int`;

  const [
    timelineRows,
    rejectRows,
    workflowRows,
    queueRows,
    approvalRows,
    taskRows,
    hookRows,
    reasonRows,
  ] = await Promise.all([
    execRows<{ b: number; runs: number; failed: number }>(
      db,
      sql`select ${bucket(sql`created_at`)} as b, count(*)::int as runs,
              count(*) filter (where status in ${FAILED})::int as failed
            from runs
            where workspace_id = ${ws.id} and not is_test
              and created_at >= ${from.toISOString()} and created_at < ${to.toISOString()}
            group by 1`,
    ),
    execRows<{ b: number; n: number }>(
      db,
      sql`select ${bucket(sql`received_at`)} as b, count(*)::int as n
            from trigger_deliveries
            where workspace_id = ${ws.id} and status in ${REJECTED}
              and received_at >= ${from.toISOString()} and received_at < ${to.toISOString()}
            group by 1`,
    ),
    execRows<{
      workflow_id: string;
      name: string;
      run_count: number;
      failed: number;
      p50: number | null;
      p95: number | null;
    }>(
      db,
      sql`select r.workflow_id, w.name, count(*)::int as run_count,
              count(*) filter (where r.status in ${FAILED})::int as failed,
              percentile_cont(0.5) within group (order by extract(epoch from (r.finished_at - r.started_at)) * 1000)
                filter (where r.started_at is not null and r.finished_at is not null) as p50,
              percentile_cont(0.95) within group (order by extract(epoch from (r.finished_at - r.started_at)) * 1000)
                filter (where r.started_at is not null and r.finished_at is not null) as p95
            from runs r join workflows w on w.id = r.workflow_id
            where r.workspace_id = ${ws.id} and not r.is_test
              and r.created_at >= ${from.toISOString()} and r.created_at < ${to.toISOString()}
            group by r.workflow_id, w.name
            order by run_count desc, w.name, r.workflow_id
            limit ${OPERATIONS_MAX_WORKFLOWS}`,
    ),
    execRows<{ queued: number; oldest: string | null; running: number; waiting: number }>(
      db,
      sql`select count(*) filter (where status = 'queued')::int as queued,
              min(queued_at) filter (where status = 'queued') as oldest,
              count(*) filter (where status = 'running')::int as running,
              count(*) filter (where status = 'waiting')::int as waiting
            from runs
            where workspace_id = ${ws.id} and status in ('queued', 'running', 'waiting')`,
    ),
    execRows<GateRow>(
      db,
      sql`select a.id, a.run_id, a.step_id, a.created_at, w.name as workflow_name,
              count(*) over ()::int as total
            from approvals a left join workflows w on w.id = a.workflow_id
            where a.workspace_id = ${ws.id} and a.status = 'pending'
            order by a.created_at, a.id limit 1`,
    ),
    execRows<GateRow>(
      db,
      sql`select t.id, t.run_id, t.step_id, t.created_at, w.name as workflow_name,
              count(*) over ()::int as total
            from tasks t left join workflows w on w.id = t.workflow_id
            where t.workspace_id = ${ws.id} and t.status = 'pending'
            order by t.created_at, t.id limit 1`,
    ),
    execRows<{ status: string; n: number }>(
      db,
      sql`select status, count(*)::int as n from trigger_deliveries
            where workspace_id = ${ws.id}
              and received_at >= ${from.toISOString()} and received_at < ${to.toISOString()}
            group by status`,
    ),
    execRows<{ reason: string | null; n: number }>(
      db,
      sql`select coalesce(reason, status) as reason, count(*)::int as n from trigger_deliveries
            where workspace_id = ${ws.id} and status in ${REJECTED}
              and received_at >= ${from.toISOString()} and received_at < ${to.toISOString()}
            group by 1 order by n desc, 1 limit 5`,
    ),
  ]);

  const timeline = Array.from({ length: hours }, (_, i) => ({
    at: new Date(from.getTime() + i * HOUR_MS).toISOString(),
    runs: 0,
    failed: 0,
    webhookRejects: 0,
  }));
  for (const r of timelineRows) {
    const slot = timeline[num(r.b)];
    if (slot) {
      slot.runs = num(r.runs);
      slot.failed = num(r.failed);
    }
  }
  for (const r of rejectRows) {
    const slot = timeline[num(r.b)];
    if (slot) slot.webhookRejects = num(r.n);
  }
  const runsTotal = timeline.reduce((s, t) => s + t.runs, 0);
  const failedTotal = timeline.reduce((s, t) => s + t.failed, 0);
  const q = queueRows[0];
  const hooks = Object.fromEntries(hookRows.map((r) => [r.status, num(r.n)]));
  const oldest = [
    ...approvalRows.map((r) => ({ kind: "approval" as const, r })),
    ...taskRows.map((r) => ({ kind: "task" as const, r })),
  ].sort((a, b) => +new Date(a.r.created_at) - +new Date(b.r.created_at))[0];

  return {
    range,
    from: from.toISOString(),
    to: to.toISOString(),
    timeline,
    totals: { runs: runsTotal, failed: failedTotal, failureRate: rate(failedTotal, runsTotal) },
    workflows: workflowRows.map((r) => ({
      workflowId: r.workflow_id,
      name: r.name,
      runs: num(r.run_count),
      failed: num(r.failed),
      failureRate: rate(num(r.failed), num(r.run_count)),
      p50Ms: r.p50 === null ? null : Math.round(Number(r.p50)),
      p95Ms: r.p95 === null ? null : Math.round(Number(r.p95)),
    })),
    queue: {
      queued: num(q?.queued),
      oldestQueuedAt: iso(q?.oldest),
      running: num(q?.running),
      waiting: num(q?.waiting),
    },
    gates: {
      waiting: num(approvalRows[0]?.total) + num(taskRows[0]?.total),
      oldest: oldest
        ? {
            kind: oldest.kind,
            id: oldest.r.id,
            runId: oldest.r.run_id,
            stepId: oldest.r.step_id,
            workflowName: oldest.r.workflow_name,
            since: iso(oldest.r.created_at)!,
          }
        : null,
    },
    webhooks: {
      accepted: hooks.accepted ?? 0,
      duplicates: hooks.duplicate ?? 0,
      rejected:
        (hooks.rejected ?? 0) +
        (hooks.rate_limited ?? 0) +
        (hooks.too_large ?? 0) +
        (hooks.failed ?? 0),
      topReasons: reasonRows.map((r) => ({ reason: r.reason ?? "unknown", count: num(r.n) })),
    },
  };
}

interface GateRow {
  id: string;
  run_id: string;
  step_id: string;
  created_at: string;
  workflow_name: string | null;
  total: number;
}
