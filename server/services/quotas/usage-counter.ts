import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { quotaUsage, type QuotaMetric } from "@/db/schema";

export interface UsageKey {
  workspaceId: string;
  metric: QuotaMetric;
  /** A workflow id for per-workflow counters; '' (default) for workspace-wide ones. */
  scopeId?: string;
  periodStart: Date;
}

/**
 * Adds `amount` to a usage counter unless that would pass `limit` (null: always adds). One
 * statement — an upsert whose update is conditional — so concurrent callers serialize on the row
 * and exactly `limit` units are ever granted in a window. Returns the new total, or `null` when
 * refused (the counter is unchanged).
 */
export async function addUsage(
  db: Queryable,
  key: UsageKey,
  amount: number,
  limit: number | null,
  now: Date,
): Promise<number | null> {
  if (limit !== null && amount > limit) return null;
  const scopeId = key.scopeId ?? "";
  const rows = await db
    .insert(quotaUsage)
    .values({
      workspaceId: key.workspaceId,
      metric: key.metric,
      scopeId,
      periodStart: key.periodStart,
      used: amount,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [
        quotaUsage.workspaceId,
        quotaUsage.metric,
        quotaUsage.scopeId,
        quotaUsage.periodStart,
      ],
      set: { used: sql`${quotaUsage.used} + excluded.used`, updatedAt: now },
      ...(limit === null ? {} : { setWhere: sql`${quotaUsage.used} + excluded.used <= ${limit}` }),
    })
    .returning({ used: quotaUsage.used });
  return rows[0] ? Number(rows[0].used) : null;
}

/** The current value of a counter (0 when the window has no row yet). */
export async function readUsage(db: Queryable, key: UsageKey): Promise<number> {
  const [row] = await db
    .select({ used: quotaUsage.used })
    .from(quotaUsage)
    .where(
      and(
        eq(quotaUsage.workspaceId, key.workspaceId),
        eq(quotaUsage.metric, key.metric),
        eq(quotaUsage.scopeId, key.scopeId ?? ""),
        eq(quotaUsage.periodStart, key.periodStart),
      ),
    );
  return row ? Number(row.used) : 0;
}
