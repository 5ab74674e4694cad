import { apiRoute } from "@/server/http/api";
import { getRun } from "@/server/services/runs/get-run";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ minRole: "viewer" }, async ({ ctx, params }) => {
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
});
