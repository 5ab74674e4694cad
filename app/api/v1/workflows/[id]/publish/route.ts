import { endpoint, routeMethods } from "@/server/http/endpoint";
import { publishWorkflowOp } from "@/server/http/operations/workflows";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(publishWorkflowOp, ({ ctx, params, body }) =>
    publishWorkflow({ ctx, input: { ...body, workflowId: params.id } }),
  ),
});
