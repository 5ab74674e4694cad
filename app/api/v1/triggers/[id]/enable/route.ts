import { endpoint, routeMethods } from "@/server/http/endpoint";
import { enableTriggerOp } from "@/server/http/operations/triggers";
import { setTriggerEnabled } from "@/server/services/triggers/set-trigger-enabled";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(enableTriggerOp, ({ ctx, params }) =>
    setTriggerEnabled({ ctx, input: { triggerId: params.id, enabled: true } }),
  ),
});
