import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getProposalReplayOp } from "@/server/http/operations/proposal-replay";
import { getProposalReplay } from "@/server/services/proposals/get-proposal-replay";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getProposalReplayOp, ({ ctx, params }) =>
    getProposalReplay({ ctx, input: { proposalId: params.id } }),
  ),
});
