import "server-only";
import type { ProposalListItem } from "@/lib/schemas/proposals";
import type { ProposalRow } from "./load-proposal";

/** The list shape of a proposal row (ProposalListItem in lib/schemas/proposals.ts). */
export function toListItem(p: ProposalRow, workflowName: string): ProposalListItem {
  return {
    id: p.id,
    workflowId: p.workflowId,
    workflowName,
    summary: p.summary,
    status: p.status,
    risk: p.risk,
    author: { type: p.authorType, id: p.authorId, name: p.authorName },
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
    baseVersion: p.baseVersion,
    baseHash: p.baseHash,
    baseRequested: p.baseRequested,
    proposedHash: p.proposedHash,
  };
}
