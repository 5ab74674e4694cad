import { endpoint, routeMethods } from "@/server/http/endpoint";
import { rerunRunOp } from "@/server/http/operations/runs";
import { previewRerun } from "@/server/services/runs/preview-rerun";
import { rerunRun } from "@/server/services/runs/rerun-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** A repeated `idempotencyKey` answers the earlier rerun with 200 instead of 201; `dryRun` starts nothing. */
  POST: endpoint(rerunRunOp, async ({ ctx, params, body }) => {
    const { dryRun, ...rest } = body;
    if (dryRun) return previewRerun({ ctx, input: { ...rest, runId: params.id } });
    const r = await rerunRun({ ctx, input: { ...rest, runId: params.id } });
    return Response.json(r, { status: r.deduplicated ? 200 : 201 });
  }),
});
