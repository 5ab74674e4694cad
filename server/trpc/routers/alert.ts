import {
  GetWorkflowAlertsInput,
  ListAlertsInput,
  UpdateWorkflowAlertsInput,
  UpdateWorkspaceAlertsInput,
} from "@/lib/schemas/alerts";
import { getWorkflowAlerts } from "../../services/alerts/get-workflow-alerts";
import { getWorkspaceAlerts } from "../../services/alerts/get-workspace-alerts";
import { listAlerts } from "../../services/alerts/list-alerts";
import { updateWorkflowAlerts } from "../../services/alerts/update-workflow-alerts";
import { updateWorkspaceAlerts } from "../../services/alerts/update-workspace-alerts";
import { roleProcedure, router } from "../init";

/** Failure alerts and error workflows: members read; admins set the defaults, editors a workflow's. */
export const alertRouter = router({
  workspace: roleProcedure("viewer").query(({ ctx }) => getWorkspaceAlerts({ ctx: ctx.svc })),
  updateWorkspace: roleProcedure("admin")
    .input(UpdateWorkspaceAlertsInput)
    .mutation(({ ctx, input }) => updateWorkspaceAlerts({ ctx: ctx.svc, input })),
  workflow: roleProcedure("viewer")
    .input(GetWorkflowAlertsInput)
    .query(({ ctx, input }) => getWorkflowAlerts({ ctx: ctx.svc, input })),
  updateWorkflow: roleProcedure("editor")
    .input(UpdateWorkflowAlertsInput)
    .mutation(({ ctx, input }) => updateWorkflowAlerts({ ctx: ctx.svc, input })),
  list: roleProcedure("viewer")
    .input(ListAlertsInput)
    .query(({ ctx, input }) => listAlerts({ ctx: ctx.svc, input })),
});
