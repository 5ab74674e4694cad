import { endpoint, routeMethods } from "@/server/http/endpoint";
import { compareVersionsOp } from "@/server/http/operations/workflows";
import { compareVersions } from "@/server/services/workflows/compare-versions";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(compareVersionsOp, ({ ctx, params, query }) =>
    compareVersions({ ctx, input: { ...query, workflowId: params.id } }),
  ),
});
