import "server-only";
import { proposalReviews } from "@/db/schema";
import { newId } from "@/lib/ids";
import { ReviewProposalInput } from "@/lib/schemas/proposals";
import { canTransitionProposal } from "@/lib/workflow/status";
import { ConflictError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { chainHistory } from "../history/chain-history";
import { readRawSettings } from "../settings/read-settings";
import { ProposalError } from "./errors";
import { loadProposal } from "./load-proposal";
import { reviewRefusal, throwRefusal } from "./proposal-rules";
import { currentRuleVerdicts, refuseByRules, requireAdminReviewer } from "./rule-verdicts";
import { reviewedContentHash } from "./shown-hash";
import { transitionProposal } from "../run-state/transition";

/**
 * Approves or rejects a pending proposal (compare-and-set, so two reviewers racing decide once).
 * Separation of duties lives in proposal-rules.ts; the review records the hash of what the
 * reviewer was shown, and refuses if the proposal no longer matches it.
 */
export async function reviewProposal({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "approver");
  const userId = requireUserId(ctx);
  const parsed = ReviewProposalInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Review");
  const { proposalId, decision, notes, shownHash } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, ws.id, proposalId, { forUpdate: true });
    const settings = await readRawSettings(tx, ws.id);
    const now = ctx.now();
    const refusal = reviewRefusal(p, { userId, role: ws.role }, decision, {
      allowSelfApproval: settings.allowSelfApproval === true,
      now,
    });
    if (refusal) throwRefusal(refusal);
    const currentHash = reviewedContentHash(p);
    if (shownHash !== undefined && shownHash !== currentHash)
      throw new ProposalError(
        "SHOWN_CONTENT_CHANGED",
        "What you reviewed is not this proposal's current content; reload it and review again",
      );
    // Approving answers to the workspace's rules as they are now (rejecting never does).
    if (decision === "approve") {
      const verdicts = await currentRuleVerdicts(tx, p);
      refuseByRules(verdicts, "Approving this proposal");
      requireAdminReviewer(verdicts, ws.role);
    }
    const next = decision === "approve" ? "approved" : "rejected";
    if (!canTransitionProposal(p.status, next))
      throw new ProposalError("INVALID_STATUS", `A ${p.status} proposal cannot become ${next}`);
    const moved = await transitionProposal(tx, {
      id: p.id,
      to: next,
      set: { statusReason: notes || null, updatedAt: now },
    });
    if (!moved.won)
      throw new ConflictError("The proposal was decided by someone else meanwhile; reload it");
    const reviewId = newId("prv");
    await tx.insert(proposalReviews).values({
      id: reviewId,
      proposalId: p.id,
      workspaceId: ws.id,
      actorType: ctx.actor.type === "token" ? "token" : "user",
      actorId: ctx.actor.type === "token" ? ctx.actor.tokenId : userId,
      userId,
      reviewerRole: ws.role,
      decision,
      notes,
      shownHash: currentHash,
      createdAt: now,
    });
    await chainHistory(tx, [{ workspaceId: ws.id, kind: "proposal_review", rowId: reviewId }]);
    await recordAudit(tx, ctx, {
      workspaceId: ws.id,
      action: decision === "approve" ? "proposal.approved" : "proposal.rejected",
      targetType: "proposal",
      targetId: p.id,
      data: { workflowId: p.workflowId, shownHash: currentHash, notes, via: ctx.actor.type },
    });
    return { status: next };
  });
}
