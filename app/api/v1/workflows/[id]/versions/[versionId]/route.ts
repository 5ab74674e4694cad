import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getVersionOp } from "@/server/http/operations/workflows";
import { getVersionByRef } from "@/server/services/workflows/get-version-by-ref";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getVersionOp, ({ ctx, params }) =>
    getVersionByRef({ ctx, input: { workflowId: params.id, ref: params.versionId } }),
  ),
});
