import { endpoint, routeMethods } from "@/server/http/endpoint";
import { cancelRunOp } from "@/server/http/operations/runs";
import { cancelRun } from "@/server/services/runs/cancel-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(cancelRunOp, ({ ctx, params, body }) =>
    cancelRun({ ctx, input: { ...body, runId: params.id } }),
  ),
});
