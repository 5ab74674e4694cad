import "server-only";
import { EVENTS } from "@/inngest/events";
import type { OutboxDeliver, OutboxRow } from "./relay-outbox";

export interface InngestEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
}

/** Hooks run for each workflow event before it is forwarded (event triggers start runs here). */
export type WorkflowEventHook = (row: OutboxRow) => Promise<void>;

/**
 * Delivery of outbox rows: Inngest messages are sent as events with the row id as the event id
 * (the executor dedupes ids for 24 h, so a redelivery after a crash is harmless); workflow events
 * first go through the hooks (idempotent by event id), then travel as `sluice/workflow.event` to
 * resume matching `wait_for_event` steps.
 */
export function createOutboxDeliverer(
  send: (events: InngestEvent[]) => Promise<unknown>,
  hooks: WorkflowEventHook[] = [],
): OutboxDeliver {
  return async (rows) => {
    const events: InngestEvent[] = [];
    for (const row of rows) {
      if (row.topic === "inngest") {
        events.push({ id: row.id, name: row.name, data: row.payload });
      } else if (row.topic === "event") {
        for (const hook of hooks) await hook(row);
        events.push({
          id: row.id,
          name: EVENTS.workflowEvent,
          data: { ...row.payload, workspaceId: row.workspaceId },
        });
      } else {
        throw new Error(`unknown outbox topic "${row.topic}"`);
      }
    }
    if (events.length) await send(events);
  };
}
