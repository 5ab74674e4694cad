import { endpoint, routeMethods } from "@/server/http/endpoint";
import { validateDefinitionOp } from "@/server/http/operations/workflows";
import { validateWorkflowDefinition } from "@/server/services/workflows/validate-workflow-definition";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(validateDefinitionOp, ({ ctx, body }) =>
    validateWorkflowDefinition({ ctx, input: body }),
  ),
});
