import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listRunStepsOp } from "@/server/http/operations/runs";
import { listRunSteps } from "@/server/services/runs/list-run-steps";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listRunStepsOp, async ({ ctx, params }) => ({
    steps: await listRunSteps({ ctx, input: { runId: params.id } }),
  })),
});
