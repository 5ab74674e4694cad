import { DecideApprovalInput, ListApprovalsInput } from "@/lib/schemas/runs";
import { decideApproval } from "../../services/approvals/decide-approval";
import { listApprovals } from "../../services/approvals/list-approvals";
import { roleProcedure, router } from "../init";

export const approvalRouter = router({
  list: roleProcedure("viewer")
    .input(ListApprovalsInput.optional())
    .query(({ ctx, input }) => listApprovals({ ctx: ctx.svc, input })),
  /** The one decision path (services/approvals/decide-approval.ts), called from the UI. */
  decide: roleProcedure("approver")
    .input(DecideApprovalInput)
    .mutation(({ ctx, input }) => decideApproval({ ctx: ctx.svc, input, via: "ui" })),
});
