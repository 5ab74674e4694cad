import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getProposalImpactOp } from "@/server/http/operations/proposal-impact";
import { getInflightImpact } from "@/server/services/proposals/get-inflight-impact";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getProposalImpactOp, ({ ctx, params }) =>
    getInflightImpact({ ctx, input: { proposalId: params.id } }),
  ),
});
