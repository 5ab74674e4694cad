import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listRunEventsOp } from "@/server/http/operations/runs";
import { resumeAfter, runEventStream, wantsEventStream } from "@/server/http/run-event-stream";
import { listRunEvents } from "@/server/services/runs/list-run-events";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** JSON after `?after=`; with `Accept: text/event-stream`, a live stream resuming at Last-Event-ID. */
  GET: endpoint(listRunEventsOp, async ({ ctx, req, params, query }) => {
    const after = resumeAfter(req, query.after);
    const events = await listRunEvents({ ctx, input: { runId: params.id, after } });
    if (!wantsEventStream(req)) return { events };
    return runEventStream({
      ctx,
      runId: params.id,
      after,
      first: events,
      lifetimeMs: query.timeout === undefined ? undefined : query.timeout * 1000,
      signal: req.signal,
    });
  }),
});
