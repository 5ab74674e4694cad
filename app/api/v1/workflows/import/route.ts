import { endpoint, routeMethods } from "@/server/http/endpoint";
import { importWorkflowOp } from "@/server/http/operations/workflows";
import { importWorkflow } from "@/server/services/workflows/import-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(importWorkflowOp, ({ ctx, body }) => importWorkflow({ ctx, input: body })),
});
