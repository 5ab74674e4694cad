import "server-only";
import type { ServiceContext } from "../context";
import { getProposal } from "./get-proposal";

/**
 * A proposal's replay evidence and verification level (issue #29), for the API, MCP and the CLI:
 * the review screen's evidence without the definitions and diff.
 */
export async function getProposalReplay({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const p = await getProposal({ ctx, input });
  return {
    proposalId: p.id,
    status: p.status,
    verification: p.verification,
    requireVerifiedToApply: p.requireVerifiedToApply,
    dryRun: {
      status: p.dryRun.status,
      done: p.dryRun.done,
      total: p.dryRun.total,
      error: p.dryRun.error,
      computedAt: p.dryRun.report?.computedAt ?? null,
      runs: p.dryRun.report?.runs ?? [],
    },
    shadowRuns: p.shadowRuns,
  };
}
