import { endpoint, routeMethods } from "@/server/http/endpoint";
import {
  deleteWorkflowOp,
  getWorkflowOp,
  updateWorkflowOp,
} from "@/server/http/operations/workflows";
import { deleteWorkflow } from "@/server/services/workflows/delete-workflow";
import { getWorkflow } from "@/server/services/workflows/get-workflow";
import { updateWorkflow } from "@/server/services/workflows/update-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  // Ids carry the `wf_` prefix and slugs cannot contain "_", so one segment serves both.
  GET: endpoint(getWorkflowOp, ({ ctx, params }) =>
    getWorkflow({
      ctx,
      input: params.id.startsWith("wf_") ? { workflowId: params.id } : { slug: params.id },
    }),
  ),
  PATCH: endpoint(updateWorkflowOp, async ({ ctx, params, body }) => {
    const wf = await updateWorkflow({ ctx, input: { ...body, workflowId: params.id } });
    return {
      id: wf.id,
      name: wf.name,
      slug: wf.slug,
      tags: wf.tags,
      isEnabled: wf.isEnabled,
      description: wf.description,
    };
  }),
  DELETE: endpoint(deleteWorkflowOp, ({ ctx, params, query, body }) =>
    deleteWorkflow({
      ctx,
      input: { workflowId: params.id, confirmName: body.confirmName ?? query.confirmName },
    }),
  ),
});
