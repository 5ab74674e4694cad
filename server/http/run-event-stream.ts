import "server-only";
import { isTerminalRunStatus } from "@/lib/workflow/status";
import type { ServiceContext } from "../services/context";
import { listRunEvents } from "../services/runs/list-run-events";
import { loadRun } from "../services/runs/load-run";

type RunEvent = Awaited<ReturnType<typeof listRunEvents>>[number];

export const SSE_POLL_MS = 1_000;
export const SSE_HEARTBEAT_MS = 15_000;
export const SSE_DEFAULT_LIFETIME_MS = 300_000;
const PAGE = 500;

/** `Last-Event-ID` wins over `?after=` (a browser EventSource resends it on reconnect). */
export function resumeAfter(req: Request, after: number | undefined): number {
  const last = Number(req.headers.get("last-event-id"));
  if (Number.isInteger(last) && last > 0) return last;
  return after ?? 0;
}

export function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/event-stream");
}

function message(e: RunEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/**
 * A run's events as Server-Sent Events, polling the append-only events table. The caller has
 * already authorized the request and read the first page (so a foreign run is a JSON 404, not an
 * empty stream). Bounded: closes after `lifetimeMs` (clients reconnect with Last-Event-ID), sends
 * a heartbeat comment when idle, and ends with `event: end` once the run is finished and drained.
 */
export function runEventStream(args: {
  ctx: ServiceContext;
  runId: string;
  after: number;
  first: RunEvent[];
  lifetimeMs?: number;
  signal?: AbortSignal;
  /** Overridable for tests; defaults SSE_POLL_MS / SSE_HEARTBEAT_MS. */
  pollMs?: number;
  heartbeatMs?: number;
}): Response {
  const { ctx, runId } = args;
  const pollMs = args.pollMs ?? SSE_POLL_MS;
  const heartbeatMs = args.heartbeatMs ?? SSE_HEARTBEAT_MS;
  const encoder = new TextEncoder();
  const deadline = Date.now() + (args.lifetimeMs ?? SSE_DEFAULT_LIFETIME_MS);
  let closed = false;
  let cancelled = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    closed = true;
    wake?.();
  };
  args.signal?.addEventListener("abort", stop, { once: true });
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let lastWrite = Date.now();
      const write = (text: string) => {
        if (closed) return;
        controller.enqueue(encoder.encode(text));
        lastWrite = Date.now();
      };
      let cursor = args.after;
      let batch = args.first;
      try {
        write(`retry: ${SSE_POLL_MS}\n: connected to run ${runId}\n\n`);
        while (!closed) {
          for (const e of batch) {
            write(message(e));
            cursor = e.id;
          }
          if (batch.length < PAGE) {
            const run = await loadRun(ctx.db, ctx.workspace!.id, runId);
            if (isTerminalRunStatus(run.status)) {
              // Events are written with the status change; drain what landed before it.
              const rest = await listRunEvents({ ctx, input: { runId, after: cursor } });
              for (const e of rest) write(message(e));
              write(`event: end\ndata: ${JSON.stringify({ status: run.status })}\n\n`);
              break;
            }
            if (Date.now() >= deadline) break;
            if (Date.now() - lastWrite >= heartbeatMs) write(": heartbeat\n\n");
            await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
          }
          if (closed) break;
          batch = await listRunEvents({ ctx, input: { runId, after: cursor, limit: PAGE } });
        }
      } catch (e) {
        ctx.log.error("run event stream failed", { runId, err: e });
        write(
          `event: error\ndata: ${JSON.stringify({ message: "The stream failed; reconnect with Last-Event-ID" })}\n\n`,
        );
      } finally {
        args.signal?.removeEventListener("abort", stop);
        closed = true;
        if (!cancelled) controller.close();
      }
    },
    cancel() {
      cancelled = true;
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
