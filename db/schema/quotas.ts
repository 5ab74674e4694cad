import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./common";
import { workspaces } from "./workspaces";

/** What quota_usage counts (lib/quotas/plans.ts names the limits over them). */
export const QUOTA_METRICS = ["runs", "llm_tokens", "webhook_requests"] as const;
export type QuotaMetric = (typeof QUOTA_METRICS)[number];

/**
 * Usage counters of counted quotas, one row per (workspace, metric, scope, window): runs per
 * calendar month (UTC), LLM tokens per workflow (`scope_id`) per month, webhook requests per
 * minute. Rows are bumped with a conditional upsert (`… on conflict do update … where used + n <=
 * limit`), so concurrent requests never overshoot a limit; a new window is a new row.
 */
export const quotaUsage = pgTable(
  "quota_usage",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    metric: text("metric").$type<QuotaMetric>().notNull(),
    /** A workflow id for per-workflow counters; '' for workspace-wide ones. */
    scopeId: text("scope_id").notNull().default(""),
    periodStart: tstz("period_start").notNull(),
    used: bigint("used", { mode: "number" }).notNull().default(0),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({
      name: "quota_usage_pk",
      columns: [t.workspaceId, t.metric, t.scopeId, t.periodStart],
    }),
    // Settings reads one window of a workspace; the minute rows are pruned by period.
    index("quota_usage_period_idx").on(t.workspaceId, t.periodStart),
    check("quota_usage_metric", sql`${t.metric} in ('runs', 'llm_tokens', 'webhook_requests')`),
    check("quota_usage_used", sql`${t.used} >= 0`),
  ],
);
