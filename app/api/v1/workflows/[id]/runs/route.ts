import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listWorkflowRunsOp, startRunOp } from "@/server/http/operations/runs";
import { listWorkflowRuns } from "@/server/services/runs/list-workflow-runs";
import { startRun } from "@/server/services/runs/start-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listWorkflowRunsOp, ({ ctx, params, query }) =>
    listWorkflowRuns({ ctx, input: { ...query, workflowId: params.id } }),
  ),
  /** The `Idempotency-Key` header works like `idempotencyKey`; a repeat answers 200, not 201. */
  POST: endpoint(startRunOp, async ({ ctx, req, params, body }) => {
    const key = req.headers.get("idempotency-key") ?? undefined;
    const r = await startRun({
      ctx,
      input: { ...body, idempotencyKey: body.idempotencyKey ?? key, workflowId: params.id },
    });
    return Response.json(r, { status: r.deduplicated ? 200 : 201 });
  }),
});
