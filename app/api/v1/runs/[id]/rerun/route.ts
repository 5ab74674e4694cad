import { endpoint, routeMethods } from "@/server/http/endpoint";
import { rerunRunOp } from "@/server/http/operations/runs";
import { rerunRun } from "@/server/services/runs/rerun-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** A repeated `idempotencyKey` answers the earlier rerun with 200 instead of 201. */
  POST: endpoint(rerunRunOp, async ({ ctx, params, body }) => {
    const r = await rerunRun({ ctx, input: { ...body, runId: params.id } });
    return Response.json(r, { status: r.deduplicated ? 200 : 201 });
  }),
});
