import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { AlertChannel, AlertKind, AlertStatus } from "../../lib/schemas/alerts";
import { createdAt, tstz } from "./common";
import { users } from "./users";
import { workflows } from "./workflows";
import { workspaces } from "./workspaces";

/**
 * A workflow's alert channels and error workflow. No row (or `channels` null) = the workspace's
 * default channels (workspace settings `alerts`).
 */
export const workflowAlertSettings = pgTable(
  "workflow_alert_settings",
  {
    workflowId: text("workflow_id")
      .primaryKey()
      .references(() => workflows.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    channels: jsonb("channels").$type<AlertChannel[]>(),
    errorWorkflowId: text("error_workflow_id").references(() => workflows.id, {
      onDelete: "set null",
    }),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("workflow_alert_settings_workspace_idx").on(t.workspaceId),
    index("workflow_alert_settings_error_workflow_idx").on(t.errorWorkflowId),
    index("workflow_alert_settings_updated_by_idx").on(t.updatedBy),
  ],
);

/**
 * Every alert occurrence, delivered or suppressed: the durable de-duplication state shared by
 * every process. The first occurrence of a (kind, subject) in a window is sent; later ones in the
 * window are `suppressed` and counted into the next sent alert. `occurrence_key` (the failed run,
 * the gate, the trigger's window) makes recording idempotent under redelivery.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind").$type<AlertKind>().notNull(),
    /** The workflow (run failures, gates) or trigger (rejects) one window is counted for. */
    subjectId: text("subject_id").notNull(),
    workflowId: text("workflow_id"),
    runId: text("run_id"),
    triggerId: text("trigger_id"),
    occurrenceKey: text("occurrence_key").notNull(),
    status: text("status").$type<AlertStatus>().notNull(),
    /** Occurrences suppressed since the previous sent alert of this kind and subject. */
    suppressedCount: integer("suppressed_count").notNull().default(0),
    summary: text("summary").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    /** Per channel: `{ channel, ok, error? }` of the last attempt (never a URL or secret). */
    deliveries: jsonb("deliveries").$type<Record<string, unknown>[]>().notNull().default([]),
    attempts: integer("attempts").notNull().default(0),
    /** A delivery in progress holds the alert until then (a duplicate execution sends nothing). */
    claimedUntil: tstz("claimed_until"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: tstz("delivered_at"),
  },
  (t) => [
    uniqueIndex("alerts_occurrence_key").on(t.workspaceId, t.kind, t.occurrenceKey),
    index("alerts_subject_idx").on(t.workspaceId, t.kind, t.subjectId, t.createdAt),
    index("alerts_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("alerts_workflow_created_idx")
      .on(t.workflowId, t.createdAt)
      .where(sql`${t.workflowId} is not null`),
  ],
);
