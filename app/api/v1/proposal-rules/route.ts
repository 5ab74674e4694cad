import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getProposalRulesOp, updateProposalRulesOp } from "@/server/http/operations/proposal-rules";
import { getProposalRules } from "@/server/services/proposals/get-proposal-rules";
import { updateProposalRules } from "@/server/services/proposals/update-proposal-rules";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getProposalRulesOp, ({ ctx }) => getProposalRules({ ctx })),
  PUT: endpoint(updateProposalRulesOp, ({ ctx, body }) =>
    updateProposalRules({ ctx, input: body }),
  ),
});
