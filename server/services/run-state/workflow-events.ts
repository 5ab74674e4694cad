import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable, Tx } from "@/db/client";
import { triggers } from "@/db/schema";
import { EVENTS } from "@/inngest/events";
import { newId } from "@/lib/ids";
import { relayNeededFor } from "../outbox/deliver";
import { enqueueOutbox, type OutboxMessage } from "../outbox/enqueue-outbox";
import { inProcessExecutor } from "../outbox/in-process-executor";

export interface WorkflowEventInput {
  name: string;
  data: unknown;
  /** Where it came from: a run step, an API token, the system. */
  source?: Record<string, unknown>;
  /** A caller-chosen id makes publishing idempotent (24 h dedup downstream). */
  id?: string;
}

/**
 * Publishes workflow events inside the caller's transaction: an event exists exactly when the
 * change that caused it committed. Through the outbox, whose relay then starts matching
 * event-trigger runs and resumes `wait_for_event` steps; or, when the executor is embedded and
 * the workspace has no enabled event trigger (nothing for the relay's hooks to start), straight
 * into the executor in the same transaction — its waits are matched at the commit, and the
 * outbox row, the relay's claim, delivery and mark transactions are saved (issue 28).
 */
export async function enqueueWorkflowEvents(
  tx: Queryable,
  workspaceId: string,
  events: WorkflowEventInput[],
  now = new Date(),
): Promise<string[]> {
  const messages = events.map((e) => {
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
    } satisfies OutboxMessage;
  });
  if (messages.length && (await sendDirect(tx, workspaceId, messages))) {
    return messages.map((m) => m.id);
  }
  return enqueueOutbox(tx, messages, now);
}

/** The relay's delivery as the executor would receive it (same event id, name and data). */
async function sendDirect(
  tx: Queryable,
  workspaceId: string,
  messages: (OutboxMessage & { id: string })[],
): Promise<boolean> {
  const executor = inProcessExecutor();
  if (!executor) return false;
  // The relay's hooks (server/boot.ts) must see the events they act on.
  const need = messages.map((m) => relayNeededFor(m.name));
  if (need.includes("always")) return false;
  if (need.includes("if-triggers") && (await hasEventTrigger(tx, workspaceId))) return false;
  const sent = await executor.sendInTransaction(
    // Every caller passes its open transaction (the outbox row would be written in it too).
    tx as Tx,
    messages.map((m) => ({
      id: m.id,
      name: EVENTS.workflowEvent,
      data: { ...m.payload, workspaceId },
    })),
    { waitsOnly: true },
  );
  return sent !== undefined;
}

async function hasEventTrigger(tx: Queryable, workspaceId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: triggers.id })
    .from(triggers)
    .where(
      and(
        eq(triggers.workspaceId, workspaceId),
        eq(triggers.kind, "event"),
        eq(triggers.enabled, true),
      ),
    )
    .limit(1);
  return row !== undefined;
}
