import { endpoint, routeMethods } from "@/server/http/endpoint";
import { previewProposalRulesOp } from "@/server/http/operations/proposal-rules";
import { previewProposalRules } from "@/server/services/proposals/preview-proposal-rules";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(previewProposalRulesOp, ({ ctx, body }) =>
    previewProposalRules({ ctx, input: body }),
  ),
});
