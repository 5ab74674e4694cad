import { endpoint, routeMethods } from "@/server/http/endpoint";
import { syncWorkflowsOp } from "@/server/http/operations/workflows";
import { syncWorkflows } from "@/server/services/workflows/sync-workflows";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  PUT: endpoint(syncWorkflowsOp, ({ ctx, body }) => syncWorkflows({ ctx, input: body })),
});
