import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { proposals } from "@/db/schema";
import type { DryRunRunReport } from "@/lib/workflow/dry-run-types";
import { OPEN_PROPOSAL_STATUSES } from "@/lib/workflow/status";

/** Shadow runs kept per proposal: evidence enough, and a bound on background work. */
export const SHADOW_RUNS_PER_PROPOSAL = 50;

/**
 * Internal, for the proposal-shadow-run function (no authorization: it acts for a run of this
 * workspace). The open proposals whose base is the version this run ran, with room for more
 * shadow runs and not holding this run yet.
 */
export async function shadowTargets(
  db: Queryable,
  workspaceId: string,
  run: { runId: string; workflowId: string; versionId: string },
): Promise<Array<{ id: string; proposedHash: string }>> {
  return db
    .select({ id: proposals.id, proposedHash: proposals.proposedHash })
    .from(proposals)
    .where(
      and(
        eq(proposals.workspaceId, workspaceId),
        eq(proposals.workflowId, run.workflowId),
        eq(proposals.baseVersionId, run.versionId),
        inArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
        sql`jsonb_array_length(${proposals.shadowRuns}) < ${SHADOW_RUNS_PER_PROPOSAL}`,
        sql`not ${proposals.shadowRuns} @> ${JSON.stringify([{ runId: run.runId }])}::jsonb`,
      ),
    );
}

/**
 * Appends one shadow run's report in a single statement: the bound, the open status and "not
 * twice for the same run" are checked in its WHERE, so concurrent and repeated deliveries add it
 * at most once. False when it was not added.
 */
export async function appendShadowRun(
  db: Queryable,
  workspaceId: string,
  proposalId: string,
  report: DryRunRunReport,
): Promise<boolean> {
  const added = await db
    .update(proposals)
    .set({
      shadowRuns: sql`${proposals.shadowRuns} || ${JSON.stringify([report])}::jsonb`,
    })
    .where(
      and(
        eq(proposals.id, proposalId),
        eq(proposals.workspaceId, workspaceId),
        inArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
        sql`jsonb_array_length(${proposals.shadowRuns}) < ${SHADOW_RUNS_PER_PROPOSAL}`,
        sql`not ${proposals.shadowRuns} @> ${JSON.stringify([{ runId: report.runId }])}::jsonb`,
      ),
    )
    .returning({ id: proposals.id });
  return added.length === 1;
}
