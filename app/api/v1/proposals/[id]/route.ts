import { getProposal } from "@/server/services/proposals/get-proposal";
import { proposalRoute } from "../proposal-route";

export const dynamic = "force-dynamic";

/** One proposal with base/proposed/current definitions, diff, risk, verdicts, dry run, reviews. */
export const GET = proposalRoute<{ id: string }>({ minRole: "viewer" }, ({ ctx, params }) =>
  getProposal({ ctx, input: { proposalId: params.id } }),
);
