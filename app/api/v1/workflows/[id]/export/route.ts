import { endpoint, routeMethods } from "@/server/http/endpoint";
import { exportWorkflowOp } from "@/server/http/operations/workflows";
import { exportWorkflow } from "@/server/services/workflows/export-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(exportWorkflowOp, async ({ ctx, params, query }) => {
    const file = await exportWorkflow({ ctx, input: { ...query, workflowId: params.id } });
    return new Response(file.content, {
      headers: {
        "content-type": `${file.contentType}; charset=utf-8`,
        "content-disposition": `attachment; filename="${file.filename}"`,
      },
    });
  }),
});
