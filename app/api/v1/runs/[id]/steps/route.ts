import { apiRoute } from "@/server/http/api";
import { listRunSteps } from "@/server/services/runs/list-run-steps";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ minRole: "viewer" }, async ({ ctx, params }) => ({
  steps: await listRunSteps({ ctx, input: { runId: params.id } }),
}));
