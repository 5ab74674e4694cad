import "server-only";
import type { Queryable } from "@/db/client";
import { outbox } from "@/db/schema";
import { newId } from "@/lib/ids";
import { wakeOutboxRelay } from "./relay-signal";

export interface OutboxMessage {
  workspaceId?: string | null;
  topic: "inngest" | "event";
  name: string;
  payload: Record<string, unknown>;
  /** Stable id: receivers dedupe on it (Inngest event id, workflow event id). */
  id?: string;
}

/**
 * Writes messages inside the caller's transaction: they exist exactly when the change that caused
 * them committed. The relay delivers them afterwards (the wake-up is a hint; it polls anyway).
 */
export async function enqueueOutbox(
  tx: Queryable,
  messages: OutboxMessage[],
  now = new Date(),
): Promise<string[]> {
  if (messages.length === 0) return [];
  const rows = messages.map((m) => ({
    id: m.id ?? newId("ob"),
    workspaceId: m.workspaceId ?? null,
    topic: m.topic,
    name: m.name,
    payload: m.payload,
    createdAt: now,
    // Delivery is due at once in real time (the relay polls with the wall clock).
    availableAt: new Date(),
  }));
  await tx.insert(outbox).values(rows).onConflictDoNothing();
  // Wake after the current transaction has had a chance to commit.
  setTimeout(wakeOutboxRelay, 0);
  return rows.map((r) => r.id);
}
