import { endpoint, routeMethods } from "@/server/http/endpoint";
import { previewRerunOp } from "@/server/http/operations/run-compare";
import { previewRerun } from "@/server/services/runs/preview-rerun";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(previewRerunOp, ({ ctx, params, query }) =>
    previewRerun({ ctx, input: { ...query, runId: params.id } }),
  ),
});
