import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { runs } from "./runs";
import { users } from "./users";
import { workflows } from "./workflows";
import { workspaces } from "./workspaces";

/** AES-256-GCM ciphertext of a webhook signing secret (server/secrets/crypto.ts, base64 fields). */
export interface EncryptedTriggerSecret {
  ciphertext: string;
  iv: string;
  authTag: string;
  keyVersion: number;
}

/**
 * Triggers start runs of one workflow (SPEC §7). `config` holds the kind's settings, validated by
 * `lib/schemas/triggers.ts` on every write. Webhook triggers own a globally unique `path`
 * (`/api/hooks/<path>`) and an encrypted signing secret; during a rotation the previous secret
 * keeps verifying until `previous_secret_expires_at`.
 */
export const triggers = pgTable(
  "triggers",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"webhook" | "schedule" | "event">().notNull(),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    /** Webhooks only: the unique path segment after `/api/hooks/`. */
    path: text("path"),
    secret: jsonb("secret").$type<EncryptedTriggerSecret>(),
    previousSecret: jsonb("previous_secret").$type<EncryptedTriggerSecret>(),
    previousSecretExpiresAt: tstz("previous_secret_expires_at"),
    /** Event triggers only: the event name pattern, indexed for matching. */
    eventName: text("event_name"),
    /** Schedules only: the last tick the scheduler has planned up to (its cursor). */
    scheduleCursor: tstz("schedule_cursor"),
    lastFiredAt: tstz("last_fired_at"),
    lastRunId: text("last_run_id").references(() => runs.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("triggers_path_key").on(t.path),
    index("triggers_workflow_idx").on(t.workspaceId, t.workflowId),
    index("triggers_event_idx")
      .on(t.workspaceId, t.eventName)
      .where(sql`${t.kind} = 'event'`),
    index("triggers_schedule_idx").on(t.kind, t.enabled),
    index("triggers_created_by_idx").on(t.createdBy),
    index("triggers_last_run_idx").on(t.lastRunId),
    check("triggers_kind", sql`${t.kind} in ('webhook', 'schedule', 'event')`),
    check("triggers_webhook_path", sql`(${t.kind} = 'webhook') = (${t.path} is not null)`),
  ],
);

/**
 * Every attempt to fire a trigger: webhook deliveries (accepted, duplicate, rejected with the
 * reason, rate limited, too large, skipped by a header match or filter), event matches and manual "fire now". Never holds a secret;
 * headers are stored with signature and authorization values removed.
 */
export const triggerDeliveries = pgTable(
  "trigger_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    triggerId: text("trigger_id")
      .notNull()
      .references(() => triggers.id, { onDelete: "cascade" }),
    receivedAt: tstz("received_at").notNull().defaultNow(),
    status: text("status")
      .$type<
        "accepted" | "duplicate" | "rejected" | "rate_limited" | "too_large" | "failed" | "skipped"
      >()
      .notNull(),
    reason: text("reason"),
    httpStatus: integer("http_status"),
    deliveryKey: text("delivery_key"),
    runId: text("run_id").references(() => runs.id, { onDelete: "set null" }),
    request: jsonb("request").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("trigger_deliveries_trigger_idx").on(t.triggerId, t.receivedAt),
    index("trigger_deliveries_workspace_idx").on(t.workspaceId, t.receivedAt),
    index("trigger_deliveries_run_idx").on(t.runId),
  ],
);

/**
 * Schedule ticks: the unique (trigger, tick) row is the claim that makes each tick fire once, even
 * with two schedulers on one database. Skipped and missed ticks are kept with their reason.
 */
export const scheduleTicks = pgTable(
  "schedule_ticks",
  {
    triggerId: text("trigger_id")
      .notNull()
      .references(() => triggers.id, { onDelete: "cascade" }),
    tick: tstz("tick").notNull(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    status: text("status").$type<"fired" | "skipped" | "missed" | "failed">().notNull(),
    reason: text("reason"),
    runId: text("run_id").references(() => runs.id, { onDelete: "set null" }),
    claimedAt: tstz("claimed_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.triggerId, t.tick] }),
    index("schedule_ticks_workspace_idx").on(t.workspaceId, t.claimedAt),
    index("schedule_ticks_run_idx").on(t.runId),
  ],
);
