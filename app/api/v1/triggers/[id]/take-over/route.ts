import { endpoint, routeMethods } from "@/server/http/endpoint";
import { takeOverTriggerOp } from "@/server/http/operations/triggers";
import { takeOverTrigger } from "@/server/services/triggers/take-over-trigger";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(takeOverTriggerOp, ({ ctx, params }) =>
    takeOverTrigger({ ctx, input: { triggerId: params.id } }),
  ),
});
