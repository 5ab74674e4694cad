import "server-only";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs, workspaces } from "@/db/schema";
import { WorkspaceSettings } from "@/lib/schemas/workspace";
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

export type AdmissionConfig = Pick<
  ServiceConfig,
  "maxActiveRunsPerUser" | "maxActiveRunsPerWorkspace" | "defaultPlan"
>;

/**
 * Workspace overrides (Settings) over the configured defaults, and the quota plan's cap on
 * concurrent runs per workflow.
 */
export async function admissionLimits(
  tx: Queryable,
  workspaceId: string,
  config: AdmissionConfig,
): Promise<AdmissionLimits> {
  const [ws] = await tx
    .select({ settings: workspaces.settings })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  return limitsFromSettings(ws?.settings, config);
}

/** admissionLimits over an already-read `workspaces.settings` value. */
export function limitsFromSettings(settings: unknown, config: AdmissionConfig): AdmissionLimits {
  const s = WorkspaceSettings.safeParse(settings ?? {});
  const perWorkflow = quotaFromSettings(
    (settings as { quota?: unknown } | undefined)?.quota,
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
