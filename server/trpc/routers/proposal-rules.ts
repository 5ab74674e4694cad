import { PreviewProposalRulesInput, UpdateProposalRulesInput } from "@/lib/schemas/proposal-rules";
import { getProposalRules } from "../../services/proposals/get-proposal-rules";
import { previewProposalRules } from "../../services/proposals/preview-proposal-rules";
import { updateProposalRules } from "../../services/proposals/update-proposal-rules";
import { roleProcedure, router } from "../init";

/** A workspace's proposal rules (CEL): every member reads them, admins edit and preview. */
export const proposalRulesRouter = router({
  get: roleProcedure("viewer").query(({ ctx }) => getProposalRules({ ctx: ctx.svc })),
  update: roleProcedure("admin")
    .input(UpdateProposalRulesInput)
    .mutation(({ ctx, input }) => updateProposalRules({ ctx: ctx.svc, input })),
  preview: roleProcedure("admin")
    .input(PreviewProposalRulesInput)
    .mutation(({ ctx, input }) => previewProposalRules({ ctx: ctx.svc, input })),
});
