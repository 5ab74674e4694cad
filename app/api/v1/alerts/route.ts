import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listAlertsOp } from "@/server/http/operations/alerts";
import { listAlerts } from "@/server/services/alerts/list-alerts";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listAlertsOp, ({ ctx, query }) => listAlerts({ ctx, input: query })),
});
