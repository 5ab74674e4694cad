import { endpoint, routeMethods } from "@/server/http/endpoint";
import { rollbackWorkflowOp } from "@/server/http/operations/workflows";
import { rollbackWorkflow } from "@/server/services/workflows/rollback-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(rollbackWorkflowOp, ({ ctx, params, body }) =>
    rollbackWorkflow({ ctx, input: { ...body, workflowId: params.id } }),
  ),
});
