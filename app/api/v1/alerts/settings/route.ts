import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getAlertSettingsOp, updateAlertSettingsOp } from "@/server/http/operations/alerts";
import { getWorkspaceAlerts } from "@/server/services/alerts/get-workspace-alerts";
import { updateWorkspaceAlerts } from "@/server/services/alerts/update-workspace-alerts";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getAlertSettingsOp, ({ ctx }) => getWorkspaceAlerts({ ctx })),
  PUT: endpoint(updateAlertSettingsOp, ({ ctx, body }) =>
    updateWorkspaceAlerts({ ctx, input: body }),
  ),
});
