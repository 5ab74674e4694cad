import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listTriggerTicksOp } from "@/server/http/operations/triggers";
import { listScheduleTicks } from "@/server/services/triggers/list-schedule-ticks";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listTriggerTicksOp, ({ ctx, params, query }) =>
    listScheduleTicks({ ctx, input: { ...query, triggerId: params.id } }),
  ),
});
