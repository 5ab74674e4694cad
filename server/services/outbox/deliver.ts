import "server-only";
import { EVENTS } from "@/inngest/events";
import type { OutboxDeliver, OutboxRow } from "./relay-outbox";

export interface InngestEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
}

/**
 * Hooks run for each workflow event before it is forwarded (event triggers start runs here).
 * A hook may say what it acts on: `eventNames` (only these events) or `eventTriggers` (only when
 * the workspace has an enabled event trigger). Events no hook acts on may skip the relay when
 * the executor is embedded (run-state/workflow-events.ts); a hook that says nothing sees every
 * event through the relay.
 */
export type WorkflowEventHook = ((row: OutboxRow) => Promise<void>) & {
  eventNames?: readonly string[];
  eventTriggers?: boolean;
};

type Global = typeof globalThis & { __sluiceEventHooks?: WorkflowEventHook[] };

/**
 * Whether event `name` must travel through the relay for the hooks registered in this process
 * (server/boot.ts): "always", "if-triggers" (only the event-trigger hook may act), or "never".
 * No hooks registered (no relay in this process): "always", to be safe.
 */
export function relayNeededFor(name: string): "always" | "if-triggers" | "never" {
  const hooks = (globalThis as Global).__sluiceEventHooks;
  if (!hooks) return "always";
  let need: "always" | "if-triggers" | "never" = "never";
  for (const hook of hooks) {
    if (hook.eventTriggers) need = "if-triggers";
    else if (!hook.eventNames || hook.eventNames.includes(name)) return "always";
  }
  return need;
}

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
