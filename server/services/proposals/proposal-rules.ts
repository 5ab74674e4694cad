import "server-only";
import { hasRole, roleRank, Role } from "@/lib/schemas/roles";
import type { ProposalStatus } from "@/lib/workflow/status";
import type { ProposalErrorReason } from "@/lib/schemas/proposals";
import { ForbiddenError } from "../../errors";
import { ProposalError } from "./errors";

/** A refusal with the rule that made it, or null when allowed. */
export type Refusal = { reason: ProposalErrorReason | "FORBIDDEN"; message: string } | null;

interface ProposalFacts {
  status: ProposalStatus;
  authorUserId: string | null;
  authorRole: string;
  needsSeniorReviewer: boolean;
  expiresAt: Date;
}

function roleOf(value: string): Role {
  const parsed = Role.safeParse(value);
  // An unreadable stored role counts as the strongest, so a senior review is never waved through.
  return parsed.success ? parsed.data : "owner";
}

/**
 * Separation of duties for a review (SPEC §8): approver or above; nobody approves their own
 * proposal unless the workspace allows it; a change that loosens constraints needs a reviewer
 * ranked above its author. Rejecting your own proposal is allowed (it withdraws it).
 */
export function reviewRefusal(
  p: ProposalFacts,
  reviewer: { userId: string; role: Role },
  decision: "approve" | "reject",
  opts: { allowSelfApproval: boolean; now: Date },
): Refusal {
  if (!hasRole(reviewer.role, "approver"))
    return {
      reason: "FORBIDDEN",
      message: `Reviewing needs the approver role or higher; you are ${reviewer.role}`,
    };
  if (p.status !== "pending")
    return {
      reason: "INVALID_STATUS",
      message: `The proposal is ${p.status}; only pending proposals can be reviewed`,
    };
  if (p.expiresAt <= opts.now)
    return { reason: "EXPIRED", message: `The proposal expired on ${p.expiresAt.toISOString()}` };
  if (decision === "reject") return null;
  if (p.authorUserId === reviewer.userId && !opts.allowSelfApproval)
    return {
      reason: "SELF_REVIEW",
      message:
        "You proposed this change, so someone else must approve it (the workspace does not allow self-approval)",
    };
  const authorRole = roleOf(p.authorRole);
  if (p.needsSeniorReviewer && roleRank(reviewer.role) <= roleRank(authorRole))
    return {
      reason: "SENIOR_REVIEWER_REQUIRED",
      message: `This change loosens the workflow's safeguards, so its reviewer must rank above the proposer's role (${authorRole}); you are ${reviewer.role}`,
    };
  return null;
}

/** Apply needs admin or above, or the workflow's creator holding editor (SPEC §8, issue 12). */
export function applyRefusal(
  p: ProposalFacts,
  applier: { userId: string; role: Role },
  workflowCreatedBy: string | null,
  now: Date,
): Refusal {
  const isCreator = workflowCreatedBy !== null && workflowCreatedBy === applier.userId;
  if (!hasRole(applier.role, "admin") && !(isCreator && hasRole(applier.role, "editor")))
    return {
      reason: "FORBIDDEN",
      message: `Applying a proposal needs the admin role, or the editor role as the workflow's creator; you are ${applier.role}${isCreator ? "" : " and did not create this workflow"}`,
    };
  if (p.status !== "approved")
    return {
      reason: "INVALID_STATUS",
      message:
        p.status === "pending"
          ? "The proposal has not been approved yet"
          : `The proposal is ${p.status}; only approved proposals can be applied`,
    };
  if (p.expiresAt <= now)
    return { reason: "EXPIRED", message: `The proposal expired on ${p.expiresAt.toISOString()}` };
  return null;
}

export function throwRefusal(refusal: NonNullable<Refusal>): never {
  if (refusal.reason === "FORBIDDEN") throw new ForbiddenError(refusal.message);
  throw new ProposalError(refusal.reason, refusal.message);
}
