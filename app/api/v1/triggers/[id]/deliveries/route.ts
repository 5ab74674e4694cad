import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listTriggerDeliveriesOp } from "@/server/http/operations/triggers";
import { listTriggerDeliveries } from "@/server/services/triggers/list-trigger-deliveries";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** The service pages with `before`/`nextBefore`; the API uses `cursor`/`nextCursor` everywhere. */
  GET: endpoint(listTriggerDeliveriesOp, async ({ ctx, params, query }) => {
    const { items, nextBefore } = await listTriggerDeliveries({
      ctx,
      input: { triggerId: params.id, limit: query.limit, before: query.cursor },
    });
    return { items, nextCursor: nextBefore };
  }),
});
