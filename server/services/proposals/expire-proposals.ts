import "server-only";
import { and, inArray, isNotNull, lt, notInArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditEvents, proposalReviews, proposals } from "@/db/schema";
import { PROPOSAL_RETENTION_DAYS } from "@/lib/schemas/proposals";
import { OPEN_PROPOSAL_STATUSES } from "@/lib/workflow/status";
import { transitionProposal } from "../run-state/transition";
import { chainHistory } from "../history/chain-history";
import { recordPruned } from "../history/record-pruned";

const DAY_MS = 86_400_000;

/**
 * Internal, for the daily expire-proposals function. Open proposals past `expiresAt` become
 * `expired` (compare-and-set on the open statuses, so a concurrent apply wins or loses cleanly),
 * each with a system audit row; closed proposals older than the retention are deleted.
 */
export async function expireProposals(
  db: Db,
  now: Date,
  opts: { retentionDays?: number } = {},
): Promise<{ expired: number; deleted: number }> {
  const retentionDays = opts.retentionDays ?? PROPOSAL_RETENTION_DAYS;
  return db.transaction(async (tx) => {
    const { rows: expired } = await transitionProposal(tx, {
      to: "expired",
      where: lt(proposals.expiresAt, now),
      set: {
        statusReason: `Not applied before ${now.toISOString()} (proposals expire after 14 days)`,
        updatedAt: now,
      },
      returning: {
        id: proposals.id,
        workspaceId: proposals.workspaceId,
        workflowId: proposals.workflowId,
      },
    });
    if (expired.length) {
      const rows = await tx
        .insert(auditEvents)
        .values(
          expired.map((p) => ({
            workspaceId: p.workspaceId,
            actorType: "system",
            actorId: "expire-proposals",
            action: "proposal.expired",
            targetType: "proposal",
            targetId: p.id,
            data: { workflowId: p.workflowId },
            createdAt: now,
          })),
        )
        .returning({ id: auditEvents.id, workspaceId: auditEvents.workspaceId });
      await chainHistory(
        tx,
        rows.map((r) => ({
          workspaceId: r.workspaceId,
          kind: "audit" as const,
          rowId: String(r.id),
        })),
      );
    }
    const old = and(
      notInArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
      lt(proposals.updatedAt, new Date(now.getTime() - retentionDays * DAY_MS)),
    );
    // Their chained reviews and applies go too: say so in the chain first.
    const oldIds = tx.select({ id: proposals.id }).from(proposals).where(old);
    await recordPruned(
      tx,
      "proposal_review",
      tx
        .select({ workspaceId: proposalReviews.workspaceId, id: proposalReviews.id })
        .from(proposalReviews)
        .where(inArray(proposalReviews.proposalId, oldIds)),
      now,
    );
    await recordPruned(
      tx,
      "proposal_apply",
      tx
        .select({ workspaceId: proposals.workspaceId, id: proposals.id })
        .from(proposals)
        .where(and(old, isNotNull(proposals.appliedAt))),
      now,
    );
    const deleted = await tx.delete(proposals).where(old).returning({ id: proposals.id });
    return { expired: expired.length, deleted: deleted.length };
  });
}
