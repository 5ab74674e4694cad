import "server-only";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { proposals } from "@/db/schema";
import { OPEN_PROPOSAL_STATUSES } from "@/lib/workflow/status";
import { dryRunRequestMessage } from "./dry-run-messages";

/**
 * The workflow's published version changed (publish, rollback, import, an applied proposal): its
 * open proposals' dry runs are requested again, in the caller's transaction, so each report
 * reflects the base they would now be compared with. A newer request number makes any dry run
 * still running for the old one write nothing.
 */
export async function requestDryRunsForWorkflow(
  tx: Queryable,
  workspaceId: string,
  workflowId: string,
  now: Date,
): Promise<number> {
  const open = await requestDryRuns(
    tx,
    workspaceId,
    and(
      eq(proposals.workflowId, workflowId),
      inArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
    )!,
    now,
  );
  return open.length;
}

/**
 * Bumps the dry-run request number of the workspace's proposals matching `where`, resets their
 * progress, and queues one request message each (in the caller's transaction).
 */
export async function requestDryRuns(
  tx: Queryable,
  workspaceId: string,
  where: SQL,
  now: Date,
): Promise<Array<{ id: string; request: number }>> {
  const bumped = await tx
    .update(proposals)
    .set({
      dryRunRequest: sql`${proposals.dryRunRequest} + 1`,
      dryRunStatus: "pending",
      dryRunDone: 0,
      dryRunError: null,
      updatedAt: now,
    })
    .where(and(eq(proposals.workspaceId, workspaceId), where))
    .returning({ id: proposals.id, request: proposals.dryRunRequest });
  for (const p of bumped) {
    await dryRunRequestMessage(tx, { proposalId: p.id, workspaceId, request: p.request }, now);
  }
  return bumped;
}
