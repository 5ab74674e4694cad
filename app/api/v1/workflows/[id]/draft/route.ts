import { endpoint, routeMethods } from "@/server/http/endpoint";
import { saveDraftOp } from "@/server/http/operations/workflows";
import { saveDraft } from "@/server/services/workflows/save-draft";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  PUT: endpoint(saveDraftOp, ({ ctx, params, body }) =>
    saveDraft({ ctx, input: { ...body, workflowId: params.id } }),
  ),
});
