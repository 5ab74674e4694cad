import "server-only";
import { and, asc, eq, gte, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executorEvents, outbox } from "@/db/schema";
import { EVENTS } from "@/inngest/events";

/** Does an event payload carry every `match` field (a path into data, or name/data/eventId)? */
export function matchesEvent(
  payload: Record<string, unknown>,
  match: Record<string, unknown>,
): boolean {
  for (const [path, expected] of Object.entries(match)) {
    const parts = path.split(".");
    const root: unknown =
      parts[0] === "name" || parts[0] === "data" || parts[0] === "eventId" ? payload : payload.data;
    let cur: unknown = root;
    for (const p of parts) {
      if (cur === null || typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, p))
        return false;
      cur = (cur as Record<string, unknown>)[p];
    }
    if (cur !== expected) return false;
  }
  return true;
}

/**
 * The first workflow event of the workspace named `event`, emitted since `since` (one second of
 * slack), whose payload matches: a durable wait's look-back over the gap between marking the step
 * waiting and the executor registering the wait.
 */
export async function findEventSince(
  db: Db,
  a: { workspaceId: string; event: string; match: Record<string, unknown>; since: Date },
): Promise<{ id: string; payload: Record<string, unknown> } | null> {
  const from = new Date(a.since.getTime() - 1_000);
  const relayed = await db
    .select({ id: outbox.id, payload: outbox.payload, at: outbox.createdAt })
    .from(outbox)
    .where(
      and(
        eq(outbox.workspaceId, a.workspaceId),
        eq(outbox.topic, "event"),
        eq(outbox.name, a.event),
        gte(outbox.createdAt, from),
      ),
    )
    .orderBy(asc(outbox.createdAt), asc(outbox.id))
    .limit(500);
  // Events that skipped the relay went straight into the embedded executor
  // (run-state/workflow-events.ts): the same id and payload, under the executor's event.
  const data = sql`${executorEvents.payload}->'data'`;
  const direct = await db
    .select({
      id: sql<string>`coalesce(${executorEvents.externalId}, ${executorEvents.id})`,
      payload: sql<Record<string, unknown>>`(${data}) - 'workspaceId'::text`,
      at: executorEvents.receivedAt,
    })
    .from(executorEvents)
    .where(
      and(
        eq(executorEvents.name, EVENTS.workflowEvent),
        gte(executorEvents.receivedAt, from),
        isNull(executorEvents.duplicateOf),
        sql`${data}->>'workspaceId' = ${a.workspaceId}`,
        sql`${data}->>'name' = ${a.event}`,
      ),
    )
    .orderBy(asc(executorEvents.receivedAt), asc(executorEvents.id))
    .limit(500);
  const rows = [...relayed, ...direct].sort((x, y) => x.at.getTime() - y.at.getTime());
  const hit = rows.find((r) => matchesEvent(r.payload, a.match));
  return hit ? { id: hit.id, payload: hit.payload } : null;
}
