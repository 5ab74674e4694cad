import { endpoint, routeMethods } from "@/server/http/endpoint";
import { createTriggerOp, listWorkflowTriggersOp } from "@/server/http/operations/triggers";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { listWorkflowTriggers } from "@/server/services/triggers/list-workflow-triggers";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listWorkflowTriggersOp, async ({ ctx, params }) => ({
    items: await listWorkflowTriggers({ ctx, input: { workflowId: params.id } }),
  })),
  POST: endpoint(createTriggerOp, async ({ ctx, params, body }) =>
    Response.json(await createTrigger({ ctx, input: { ...body, workflowId: params.id } }), {
      status: 201,
    }),
  ),
});
