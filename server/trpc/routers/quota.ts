import { UpdateWorkspaceQuotaInput } from "@/lib/schemas/quotas";
import { getQuotaUsage } from "../../services/quotas/get-quota-usage";
import { updateWorkspaceQuota } from "../../services/quotas/update-workspace-quota";
import { roleProcedure, router } from "../init";

/** Workspace quotas: every member reads the plan and usage, admins change the plan and limits. */
export const quotaRouter = router({
  get: roleProcedure("viewer").query(({ ctx }) => getQuotaUsage({ ctx: ctx.svc })),
  update: roleProcedure("admin")
    .input(UpdateWorkspaceQuotaInput)
    .mutation(({ ctx, input }) => updateWorkspaceQuota({ ctx: ctx.svc, input })),
});
