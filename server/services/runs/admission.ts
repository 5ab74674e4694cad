import "server-only";
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs, workspaces } from "@/db/schema";
import { WorkspaceSettings } from "@/lib/schemas/workspace";
import { EVENTS } from "@/inngest/events";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { appendRunEvents } from "./run-events";
import { tighterCap } from "@/lib/quotas/plans";
import { ACTIVE_RUN_STATUSES } from "@/lib/workflow/status";
import type { ServiceConfig } from "../context";
import { quotaFromSettings } from "../quotas/workspace-quota";

/** Active = holds a slot: running, waiting (approvals, delays, event waits) or being cancelled. */
export const ACTIVE_STATUSES = ACTIVE_RUN_STATUSES;

export interface AdmissionLimits {
  perUser: number;
  perWorkspace: number;
  /** The plan's "concurrent runs per workflow" quota: caps every definition's maxConcurrentRuns. */
  perWorkflow?: number;
}

/**
 * Workspace overrides (Settings) over the configured defaults, and the quota plan's cap on
 * concurrent runs per workflow.
 */
export async function admissionLimits(
  tx: Queryable,
  workspaceId: string,
  config: Pick<ServiceConfig, "maxActiveRunsPerUser" | "maxActiveRunsPerWorkspace" | "defaultPlan">,
): Promise<AdmissionLimits> {
  const [ws] = await tx
    .select({ settings: workspaces.settings })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  const s = WorkspaceSettings.safeParse(ws?.settings ?? {});
  const perWorkflow = quotaFromSettings(
    (ws?.settings as { quota?: unknown } | undefined)?.quota,
    config,
  ).limits.concurrentRunsPerDefinition;
  return {
    perUser: (s.success && s.data.maxActiveRunsPerUser) || config.maxActiveRunsPerUser,
    perWorkspace:
      (s.success && s.data.maxActiveRunsPerWorkspace) || config.maxActiveRunsPerWorkspace,
    ...(perWorkflow === null ? {} : { perWorkflow }),
  };
}

/** Serialises admission per workspace (several app instances, concurrent finishes). */
export async function lockWorkspaceAdmission(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"admission:" + workspaceId}))`);
}

/**
 * Starts queued runs of a workspace in FIFO order while slots are free (SPEC §5): at most
 * `perUser` active runs per accountable user, `perWorkspace` per workspace, and each workflow's
 * `maxConcurrentRuns` (capped by the plan's concurrent-runs-per-workflow quota). A queued run whose limit is full waits and does not block runs behind it
 * that have room. Child runs (subworkflows) never queue: they run inside their parent's slot.
 * Call inside a transaction; returns the admitted run ids.
 */
export async function admitQueuedRuns(
  tx: Queryable,
  workspaceId: string,
  limits: AdmissionLimits,
  now: Date,
): Promise<string[]> {
  await lockWorkspaceAdmission(tx, workspaceId);
  const activeRows = await tx
    .select({
      workflowId: runs.workflowId,
      hash: runs.hash,
      user: runs.accountableUserId,
      n: count(),
    })
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        inArray(runs.status, [...ACTIVE_STATUSES]),
        sql`${runs.parentRunId} is null`,
      ),
    )
    .groupBy(runs.workflowId, runs.hash, runs.accountableUserId);
  let total = 0;
  const perUser = new Map<string, number>();
  const perWorkflow = new Map<string, number>();
  for (const r of activeRows) {
    total += r.n;
    if (r.user) perUser.set(r.user, (perUser.get(r.user) ?? 0) + r.n);
    const key = concurrencyKey(r);
    perWorkflow.set(key, (perWorkflow.get(key) ?? 0) + r.n);
  }
  // Saturated (the common case under a burst): nothing can start, so the queue is not read.
  if (total >= limits.perWorkspace) return [];
  const queued = await tx
    .select({
      id: runs.id,
      workflowId: runs.workflowId,
      hash: runs.hash,
      user: runs.accountableUserId,
    })
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.status, "queued")))
    .orderBy(asc(runs.queuedAt), asc(runs.id))
    .limit(500);
  if (queued.length === 0) return [];
  const maxByWorkflow = await workflowLimits(
    tx,
    queued.flatMap((q) => (q.workflowId ? [q.workflowId] : [])),
  );

  const admitted: string[] = [];
  for (const q of queued) {
    if (total >= limits.perWorkspace) break;
    if (q.user && (perUser.get(q.user) ?? 0) >= limits.perUser) continue;
    const key = concurrencyKey(q);
    // An inline run has no workflow whose maxConcurrentRuns could apply across runs; only the
    // plan's per-definition cap does, counted per definition hash.
    const ownMax = q.workflowId ? maxByWorkflow.get(q.workflowId) : undefined;
    const wfMax = tighterCap(ownMax, limits.perWorkflow) ?? Number.POSITIVE_INFINITY;
    if ((perWorkflow.get(key) ?? 0) >= wfMax) continue;
    const done = await tx
      .update(runs)
      .set({ status: "running", updatedAt: now })
      .where(and(eq(runs.id, q.id), eq(runs.status, "queued")))
      .returning({ id: runs.id });
    if (done.length !== 1) continue;
    total++;
    if (q.user) perUser.set(q.user, (perUser.get(q.user) ?? 0) + 1);
    perWorkflow.set(key, (perWorkflow.get(key) ?? 0) + 1);
    admitted.push(q.id);
  }
  if (admitted.length) {
    await enqueueOutbox(
      tx,
      admitted.map((runId) => ({
        workspaceId,
        topic: "inngest" as const,
        name: EVENTS.runStart,
        payload: { runId, workspaceId },
        id: `start_${runId}`,
      })),
      now,
    );
    await appendRunEvents(
      tx,
      admitted.map((runId) => ({ runId, workspaceId, type: "run.admitted", data: {} })),
      now,
    );
  }
  return admitted;
}

/** What the per-workflow limit counts by: the workflow, or an inline run's definition hash. */
function concurrencyKey(r: { workflowId: string | null; hash: string }): string {
  return r.workflowId ?? `inline:${r.hash}`;
}

/** maxConcurrentRuns of each workflow's pinned definition (from the run's snapshot). */
async function workflowLimits(tx: Queryable, workflowIds: string[]): Promise<Map<string, number>> {
  const ids = [...new Set(workflowIds)];
  if (ids.length === 0) return new Map();
  // The limit of the workflow's CURRENT version applies to every queued run of it.
  const rows = await tx.execute(sql`
    select w.id as workflow_id, coalesce((c.definition->'constraints'->>'maxConcurrentRuns')::int, 10) as max
    from workflows w
    left join workflow_versions v on v.id = w.current_version_id
    left join definition_contents c on c.workspace_id = w.workspace_id and c.hash = v.hash
    where w.id in (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )})`);
  const list = (Array.isArray(rows) ? rows : ((rows as { rows?: unknown[] }).rows ?? [])) as {
    workflow_id: string;
    max: number;
  }[];
  return new Map(list.map((r) => [r.workflow_id, Number(r.max)]));
}

/**
 * For a run that starts running without queueing (a recording, driven by its recorder): why the
 * workspace or the user has no free slot now, or undefined. Its workflow is new, so its
 * per-workflow limit cannot be full. Call inside the transaction that inserts the run.
 */
export async function slotRefusal(
  tx: Queryable,
  workspaceId: string,
  limits: AdmissionLimits,
  user: string | null,
): Promise<string | undefined> {
  await lockWorkspaceAdmission(tx, workspaceId);
  // The same active set admitQueuedRuns counts: top-level runs holding a slot.
  const [row] = await tx
    .select({
      total: count(),
      mine: user
        ? sql<number>`count(*) filter (where ${runs.accountableUserId} = ${user})`
        : sql<number>`0`,
    })
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        inArray(runs.status, [...ACTIVE_STATUSES]),
        sql`${runs.parentRunId} is null`,
      ),
    );
  const total = Number(row?.total ?? 0);
  const mine = Number(row?.mine ?? 0);
  if (total >= limits.perWorkspace)
    return `The workspace already has ${total} active runs (its limit is ${limits.perWorkspace}); try again when one ends`;
  if (user && mine >= limits.perUser)
    return `You already have ${mine} active runs (the limit is ${limits.perUser} per person); finish one first`;
  return undefined;
}
