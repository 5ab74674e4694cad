import { endpoint, routeMethods } from "@/server/http/endpoint";
import { emitEventsOp } from "@/server/http/operations/meta";
import { emitEvents } from "@/server/services/events/emit-events";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(emitEventsOp, ({ ctx, body }) => emitEvents({ ctx, input: body })),
});
