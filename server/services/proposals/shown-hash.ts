import "server-only";
import { canonicalStringify, hashText } from "@/lib/workflow";
import type { ProposalRow } from "./load-proposal";

/**
 * The hash of exactly what the review screen shows a reviewer: base and proposed content (by
 * hash), summary, rationale, risk and verdicts. A review carries it back, so an approval always
 * names what was approved.
 */
export function reviewedContentHash(p: ProposalRow): string {
  return hashText(
    canonicalStringify({
      proposalId: p.id,
      baseHash: p.baseHash,
      proposedHash: p.proposedHash,
      summary: p.summary,
      rationale: p.rationale,
      risk: p.risk,
      riskReasons: p.riskReasons,
      verdicts: p.verdicts,
    }),
  );
}
