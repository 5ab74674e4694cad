import { bigserial, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./common";
import { workspaces } from "./workspaces";

/**
 * Append-only: a database trigger (migration 0001) refuses UPDATE and DELETE, so history cannot
 * be rewritten even by a bug. Rows outlive their actor (no foreign key on actor_id).
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    workspaceId: text("workspace_id").references(() => workspaces.id),
    /** user | token | system | run */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    /** Where the request came from (server/http/client-address.ts); null outside a request. */
    clientAddress: text("client_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_events_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("audit_events_target_idx").on(t.targetType, t.targetId),
  ],
);
