import "server-only";
import { afterCommit } from "@/db/after-commit";
import type { Queryable, Tx } from "@/db/client";
import { outbox } from "@/db/schema";
import { newId } from "@/lib/ids";
import { inProcessExecutor } from "./in-process-executor";
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
 * them committed. The relay delivers them afterwards (woken by the commit; it also polls, for
 * other processes).
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
  // Woken before the commit, the relay would find nothing and wait for its next poll.
  afterCommit(tx, wakeOutboxRelay);
  return rows.map((r) => r.id);
}

/**
 * Inngest messages due exactly when the caller commits (a run's start): handed to the embedded
 * executor inside the transaction when it shares this database — its run and job rows commit or
 * roll back with the caller's, its worker is woken after the commit — else written to the outbox
 * like any message (a real Inngest, or an executor that has not synced its functions yet). The
 * message id is the event id either way, so the executor's 24 h id dedup still applies.
 */
export async function sendInngestMessages(
  tx: Queryable,
  messages: (OutboxMessage & { topic: "inngest"; id: string })[],
  now = new Date(),
): Promise<void> {
  if (messages.length === 0) return;
  // Always called inside the caller's transaction (admission holds a transaction-scoped lock).
  const direct = await inProcessExecutor()?.sendInTransaction(
    tx as Tx,
    messages.map((m) => ({ id: m.id, name: m.name, data: m.payload })),
  );
  if (!direct) await enqueueOutbox(tx, messages, now);
}
