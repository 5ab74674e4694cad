import { endpoint, routeMethods } from "@/server/http/endpoint";
import { deleteTriggerOp, getTriggerOp, updateTriggerOp } from "@/server/http/operations/triggers";
import { deleteTrigger } from "@/server/services/triggers/delete-trigger";
import { getTrigger } from "@/server/services/triggers/get-trigger";
import { updateTrigger } from "@/server/services/triggers/update-trigger";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getTriggerOp, ({ ctx, params }) =>
    getTrigger({ ctx, input: { triggerId: params.id } }),
  ),
  PATCH: endpoint(updateTriggerOp, ({ ctx, params, body }) =>
    updateTrigger({ ctx, input: { ...body, triggerId: params.id } }),
  ),
  DELETE: endpoint(deleteTriggerOp, ({ ctx, params }) =>
    deleteTrigger({ ctx, input: { triggerId: params.id } }),
  ),
});
