import { endpoint, routeMethods } from "@/server/http/endpoint";
import { enableWorkflowOp } from "@/server/http/operations/workflows";
import { updateWorkflow } from "@/server/services/workflows/update-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(enableWorkflowOp, async ({ ctx, params }) => {
    const wf = await updateWorkflow({ ctx, input: { workflowId: params.id, isEnabled: true } });
    return { id: wf.id, slug: wf.slug, isEnabled: wf.isEnabled };
  }),
});
