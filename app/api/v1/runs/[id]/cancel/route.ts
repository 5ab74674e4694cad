import { apiRoute, readJsonBody } from "@/server/http/api";
import { cancelRun } from "@/server/services/runs/cancel-run";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(
  { minRole: "editor" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as { reason?: unknown };
    return cancelRun({
      ctx,
      input: {
        runId: params.id,
        reason: typeof body.reason === "string" ? body.reason : undefined,
      },
    });
  },
);
