import { apiRoute, readJsonBody } from "@/server/http/api";
import { startRun } from "@/server/services/runs/start-run";

export const dynamic = "force-dynamic";

/** Starts a run. Body `{ input?, idempotencyKey?, versionId? }`; the `Idempotency-Key` header also works. */
export const POST = apiRoute<{ id: string }>(
  { minRole: "editor" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    const key = req.headers.get("idempotency-key") ?? undefined;
    const r = await startRun({
      ctx,
      input: { ...body, idempotencyKey: body.idempotencyKey ?? key, workflowId: params.id },
    });
    return Response.json(r, { status: r.deduplicated ? 200 : 201 });
  },
);
