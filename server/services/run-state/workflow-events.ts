import "server-only";
import type { Queryable } from "@/db/client";
import { newId } from "@/lib/ids";
import { enqueueOutbox } from "../outbox/enqueue-outbox";

export interface WorkflowEventInput {
  name: string;
  data: unknown;
  /** Where it came from: a run step, an API token, the system. */
  source?: Record<string, unknown>;
  /** A caller-chosen id makes publishing idempotent (24 h dedup downstream). */
  id?: string;
}

/**
 * Publishes workflow events through the outbox, inside the caller's transaction: an event exists
 * exactly when the change that caused it committed. The relay then starts matching event-trigger
 * runs and resumes `wait_for_event` steps.
 */
export async function enqueueWorkflowEvents(
  tx: Queryable,
  workspaceId: string,
  events: WorkflowEventInput[],
  now = new Date(),
): Promise<string[]> {
  return enqueueOutbox(
    tx,
    events.map((e) => {
      const id = e.id ?? newId("evt");
      // Outbox ids are global; a caller's event id is only unique within its workspace.
      return {
        id: `ev:${workspaceId}:${id}`,
        workspaceId,
        topic: "event" as const,
        name: e.name,
        payload: {
          eventId: id,
          name: e.name,
          data: e.data ?? {},
          source: e.source ?? {},
          at: now.toISOString(),
        },
      };
    }),
    now,
  );
}
