import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getRunOp } from "@/server/http/operations/runs";
import { getRun } from "@/server/services/runs/get-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getRunOp, async ({ ctx, params }) => {
    const run = await getRun({ ctx, input: { runId: params.id } });
    const waiting = run.pendingApprovals[0];
    return {
      ...run,
      // SPEC §9: what an agent needs to resume a gate.
      requiresApproval: waiting
        ? {
            stepId: waiting.stepId,
            prompt: waiting.prompt,
            items: waiting.items,
            resumeToken: waiting.resumeToken,
          }
        : null,
    };
  }),
});
