import type { ProposalDetail } from "../../lib/schemas/proposals";

/** What `sluice propose` reads of `GET /api/v1/proposals/{id}` (dates as ISO strings). */
export type ProposalSource = Pick<
  ProposalDetail,
  | "id"
  | "workflowId"
  | "summary"
  | "status"
  | "risk"
  | "riskReasons"
  | "baseVersion"
  | "baseHash"
  | "baseRequested"
  | "proposedHash"
  | "isStale"
  | "diff"
  | "changeSummary"
> & { expiresAt: string | Date };

/**
 * `sluice propose`'s envelope (RFC §6): the proposal with its risk level and reasons, its base
 * (the hash, and what the proposer named: that hash or "current"), the proposed definition hash,
 * and the diff — its counts and one readable line per change (lib/workflow/change-summary.ts),
 * as the review screen lists them.
 */
export function buildProposalEnvelope(p: ProposalSource, created: boolean, url: string) {
  return {
    ok: true as const,
    status: created ? ("created" as const) : ("existing" as const),
    proposal: {
      id: p.id,
      workflowId: p.workflowId,
      status: p.status,
      summary: p.summary,
      risk: p.risk,
      riskReasons: p.riskReasons,
      baseVersion: p.baseVersion,
      baseHash: p.baseHash,
      baseRequested: p.baseRequested,
      proposedHash: p.proposedHash,
      isStale: p.isStale,
      expiresAt: p.expiresAt,
    },
    diff: { summary: p.diff.summary, changes: p.changeSummary },
    url,
  };
}
