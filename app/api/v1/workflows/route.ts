import { endpoint, routeMethods } from "@/server/http/endpoint";
import { createWorkflowOp, listWorkflowsOp } from "@/server/http/operations/workflows";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { listWorkflows } from "@/server/services/workflows/list-workflows";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listWorkflowsOp, ({ ctx, query }) => listWorkflows({ ctx, input: query })),
  POST: endpoint(createWorkflowOp, ({ ctx, body }) => createWorkflow({ ctx, input: body })),
});
