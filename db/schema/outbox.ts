import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";

/**
 * Transactional outbox: a message is written in the same transaction as the change that causes
 * it, and a relay delivers it afterwards (at least once, with retries; receivers dedupe by id).
 * `topic` = `inngest` (an Inngest event: run start, cancel, approval decision, workflow event)
 * or `event` (a Sluice workflow event for event triggers and waits).
 */
export const outbox = pgTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id"),
    topic: text("topic").notNull(),
    name: text("name").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    availableAt: tstz("available_at").notNull().defaultNow(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    deliveredAt: tstz("delivered_at"),
  },
  (t) => [
    index("outbox_pending_idx")
      .on(t.availableAt)
      .where(sql`${t.deliveredAt} is null`),
    index("outbox_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);
