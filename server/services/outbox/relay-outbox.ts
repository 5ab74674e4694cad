import "server-only";
import { and, asc, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { outbox } from "@/db/schema";
import type { Logger } from "@/lib/log";

export type OutboxRow = typeof outbox.$inferSelect;

/** Delivers one message; throws to retry later. Must be idempotent on `row.id`. */
export type OutboxDeliver = (rows: OutboxRow[]) => Promise<void>;

const BATCH = 100;
const MAX_BACKOFF_MS = 60_000;

/**
 * One relay pass: claims due undelivered messages (SKIP LOCKED, so several relays share the
 * work), delivers them in order, marks them delivered. A failed delivery is retried with
 * exponential backoff; nothing is ever dropped. Returns how many were delivered.
 */
export async function relayOutboxOnce(
  db: Db,
  deliver: OutboxDeliver,
  log: Logger,
  now = () => new Date(),
): Promise<number> {
  // Claim: push available_at forward as a lease, so a crash mid-delivery just delays a retry.
  const claimed = await db.transaction(async (tx) => {
    const due = await tx
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(isNull(outbox.deliveredAt), lte(outbox.availableAt, now())))
      .orderBy(asc(outbox.createdAt), asc(outbox.id))
      .limit(BATCH)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    const lease = new Date(now().getTime() + 30_000);
    return tx
      .update(outbox)
      .set({ availableAt: lease, attempts: sql`${outbox.attempts} + 1` })
      .where(
        inArray(
          outbox.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
  if (claimed.length === 0) return 0;
  claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  try {
    await deliver(claimed);
    await db
      .update(outbox)
      .set({ deliveredAt: now(), lastError: null })
      .where(
        inArray(
          outbox.id,
          claimed.map((c) => c.id),
        ),
      );
    return claimed.length;
  } catch (e) {
    const message = (e as Error).message?.slice(0, 500) ?? String(e);
    log.warn("outbox delivery failed; will retry", { count: claimed.length, err: e });
    for (const row of claimed) {
      const backoff = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(row.attempts, 10));
      await db
        .update(outbox)
        .set({ availableAt: new Date(now().getTime() + backoff), lastError: message })
        .where(and(eq(outbox.id, row.id), isNull(outbox.deliveredAt)));
    }
    return 0;
  }
}

/** Deletes delivered messages older than `days` (called by the retention function). */
export async function pruneOutbox(db: Db, olderThan: Date): Promise<void> {
  await db
    .delete(outbox)
    .where(and(sql`${outbox.deliveredAt} is not null`, lte(outbox.deliveredAt, olderThan)));
}
