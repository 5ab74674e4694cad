import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getWorkflowAlertsOp, updateWorkflowAlertsOp } from "@/server/http/operations/alerts";
import { getWorkflowAlerts } from "@/server/services/alerts/get-workflow-alerts";
import { updateWorkflowAlerts } from "@/server/services/alerts/update-workflow-alerts";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getWorkflowAlertsOp, ({ ctx, params }) =>
    getWorkflowAlerts({ ctx, input: { workflowId: params.id } }),
  ),
  PUT: endpoint(updateWorkflowAlertsOp, ({ ctx, params, body }) =>
    updateWorkflowAlerts({ ctx, input: { ...body, workflowId: params.id } }),
  ),
});
