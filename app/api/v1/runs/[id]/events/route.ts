import { apiRoute } from "@/server/http/api";
import { listRunEvents } from "@/server/services/runs/list-run-events";

export const dynamic = "force-dynamic";

/** The run's history; `?after=<event id>` returns only newer events (poll to follow a run). */
export const GET = apiRoute<{ id: string }>({ minRole: "viewer" }, async ({ ctx, req, params }) => {
  const after = Number(new URL(req.url).searchParams.get("after") ?? "0");
  return {
    events: await listRunEvents({
      ctx,
      input: {
        runId: params.id,
        after: Number.isFinite(after) && after > 0 ? Math.floor(after) : 0,
      },
    }),
  };
});
