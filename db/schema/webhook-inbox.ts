import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { triggers } from "./triggers";
import { workspaces } from "./workspaces";

export const WEBHOOK_INBOX_STATUSES = ["accepted", "admitted", "failed"] as const;
export type WebhookInboxStatus = (typeof WEBHOOK_INBOX_STATUSES)[number];

/**
 * Accepted webhook deliveries (async mode) before their run exists: the receiver answers
 * `202 { runId }` after one insert here, and the admitter creates the runs in batches with the
 * pre-generated `run_id`. The unique (trigger, delivery key) makes a repeated delivery answer the
 * first one's run. `run_id` has no foreign key: the run is created after the row.
 */
export const webhookInbox = pgTable(
  "webhook_inbox",
  {
    /** Also the id of the `trigger_deliveries` row the admitter writes. */
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    triggerId: text("trigger_id")
      .notNull()
      .references(() => triggers.id, { onDelete: "cascade" }),
    deliveryKey: text("delivery_key"),
    runId: text("run_id").notNull(),
    status: text("status").$type<WebhookInboxStatus>().notNull().default("accepted"),
    /** The mapped run input and the run's trigger payload; cleared once the run holds them. */
    input: jsonb("input").$type<Record<string, unknown>>(),
    payload: jsonb("payload"),
    /** The request summary the delivery row shows (redacted headers, body preview). */
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    error: text("error"),
    createdAt: createdAt(),
    admittedAt: tstz("admitted_at"),
  },
  (t) => [
    uniqueIndex("webhook_inbox_delivery_key").on(t.triggerId, t.deliveryKey),
    index("webhook_inbox_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'accepted'`),
    index("webhook_inbox_workspace_idx").on(t.workspaceId, t.createdAt),
    index("webhook_inbox_run_idx").on(t.runId),
    check("webhook_inbox_status", sql`${t.status} in ('accepted', 'admitted', 'failed')`),
  ],
);
