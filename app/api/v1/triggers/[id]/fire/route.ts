import { endpoint, routeMethods } from "@/server/http/endpoint";
import { fireTriggerOp } from "@/server/http/operations/triggers";
import { fireTrigger } from "@/server/services/triggers/fire-trigger";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(fireTriggerOp, ({ ctx, params, body }) =>
    fireTrigger({ ctx, input: { ...body, triggerId: params.id } }),
  ),
});
