import {
  buildRunEnvelope,
  type EnvelopeAttemptSource,
  type EnvelopeRunSource,
  type RunEnvelope,
} from "../../lib/runs/envelope";
import type { ApiClient } from "./http";

export type CliEnvelope = RunEnvelope<string>;

/** A run event as /api/v1 answers it. */
export interface RunEvent {
  id: number;
  type: string;
  stepPath: string | null;
  data: unknown;
  createdAt: string;
}

/** The run's envelope from `GET /runs/{id}` and `GET /runs/{id}/steps` (the MCP server's shape). */
export async function fetchEnvelope(api: ApiClient, runId: string): Promise<CliEnvelope> {
  const id = encodeURIComponent(runId);
  const [run, steps] = await Promise.all([
    api.get<EnvelopeRunSource<string>>(`/runs/${id}`),
    api.get<{ steps: EnvelopeAttemptSource<string>[] }>(`/runs/${id}/steps`),
  ]);
  return buildRunEnvelope(run, steps.steps);
}

/** The run's events after `after`, every page. */
export async function listEvents(
  api: ApiClient,
  runId: string,
  after: number,
): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for (;;) {
    const { events } = await api.get<{ events: RunEvent[] }>(
      `/runs/${encodeURIComponent(runId)}/events`,
      { after },
    );
    if (!events.length) return all;
    all.push(...events);
    after = events[events.length - 1]!.id;
  }
}

/** Events after which the outcome may have changed: worth a look at the envelope. */
const OUTCOME_EVENTS = new Set([
  "approval.requested",
  "approval.decided",
  "approval.expired",
  "step.waiting",
  "run.finished",
]);

/** How long the stream may stay quiet before the envelope is checked anyway. */
export const IDLE_CHECK_MS = 2_000;

/**
 * Follows the run's live event stream (SSE, resuming with Last-Event-ID) and hands every event to
 * `onEvent`, until the run is finished or stops at an approval gate (envelope status other than
 * `running`). Events recorded up to that moment are all delivered before it returns.
 */
export async function waitForOutcome(
  api: ApiClient,
  runId: string,
  {
    after = 0,
    onEvent,
    idleCheckMs = IDLE_CHECK_MS,
  }: {
    after?: number;
    onEvent: (e: RunEvent) => void;
    idleCheckMs?: number;
  },
): Promise<{ envelope: CliEnvelope; lastEventId: number }> {
  let last = after;
  const deliver = (e: RunEvent) => {
    if (e.id <= last) return;
    last = e.id;
    onEvent(e);
  };
  const settled = async () => (await fetchEnvelope(api, runId)).status !== "running";

  let done = await settled();
  while (!done) {
    const controller = new AbortController();
    const it = api.stream(`/runs/${encodeURIComponent(runId)}/events`, {
      lastEventId: String(last),
      signal: controller.signal,
    });
    try {
      let next = it.next();
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<"idle">((resolve) => {
          timer = setTimeout(() => resolve("idle"), idleCheckMs);
        });
        const r = await Promise.race([next, idle]).finally(() => clearTimeout(timer));
        if (r === "idle") {
          if ((done = await settled())) break;
          continue;
        }
        if (r.done) break; // closed by the server (lifetime): reconnect with Last-Event-ID
        next = it.next();
        if (r.value.event === "end") {
          done = await settled();
          break;
        }
        if (!r.value.data) continue;
        const event = JSON.parse(r.value.data) as RunEvent;
        deliver(event);
        if (OUTCOME_EVENTS.has(event.type) && (done = await settled())) break;
      }
      next.catch(() => undefined);
    } finally {
      controller.abort();
    }
  }
  // What was recorded between the last streamed event and the decision to stop.
  for (const e of await listEvents(api, runId, last)) deliver(e);
  return { envelope: await fetchEnvelope(api, runId), lastEventId: last };
}
