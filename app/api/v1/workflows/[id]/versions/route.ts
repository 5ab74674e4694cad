import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listVersionsOp } from "@/server/http/operations/workflows";
import { listVersions } from "@/server/services/workflows/list-versions";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listVersionsOp, async ({ ctx, params }) => ({
    items: await listVersions({ ctx, input: { workflowId: params.id } }),
  })),
});
