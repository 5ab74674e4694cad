import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listRunsOp, startInlineRunOp } from "@/server/http/operations/runs";
import { listRuns } from "@/server/services/runs/list-runs";
import { startInlineRun } from "@/server/services/runs/start-inline-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listRunsOp, ({ ctx, query }) => listRuns({ ctx, input: query })),
  /** The `Idempotency-Key` header works like `idempotencyKey`; a repeat answers 200, not 201. */
  POST: endpoint(startInlineRunOp, async ({ ctx, req, body }) => {
    const key = req.headers.get("idempotency-key") ?? undefined;
    const r = await startInlineRun({
      ctx,
      input: { ...body, idempotencyKey: body.idempotencyKey ?? key },
    });
    return Response.json(r, { status: r.deduplicated ? 200 : 201 });
  }),
});
