import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * Workspace secrets, encrypted with AES-256-GCM (server/secrets/crypto.ts). The value is never
 * stored in clear and never returned by any API after it is saved; the ciphertext is bound to
 * (workspace_id, name) as authenticated data, so rows cannot be swapped.
 */
export const secrets = pgTable(
  "secrets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** `^[A-Z][A-Z0-9_]*$`, unique per workspace; referenced as `{{ secrets.NAME }}`. */
    name: text("name").notNull(),
    /** base64 */
    ciphertext: text("ciphertext").notNull(),
    /** base64, 12 bytes */
    iv: text("iv").notNull(),
    /** base64, 16 bytes */
    authTag: text("auth_tag").notNull(),
    keyVersion: integer("key_version").notNull(),
    createdAt: createdAt(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("secrets_workspace_name_key").on(t.workspaceId, t.name),
    index("secrets_created_by_idx").on(t.createdBy),
    index("secrets_updated_by_idx").on(t.updatedBy),
    check("secrets_name_format", sql`${t.name} ~ '^[A-Z][A-Z0-9_]*$'`),
  ],
);
