import { endpoint, routeMethods } from "@/server/http/endpoint";
import { diffRunsOp } from "@/server/http/operations/run-compare";
import { diffRuns } from "@/server/services/runs/diff-runs";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(diffRunsOp, ({ ctx, params, query }) =>
    diffRuns({ ctx, input: { runId: params.id, withRunId: query.with } }),
  ),
});
