import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { users } from "./users";
import { roleEnum, workspaces } from "./workspaces";

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** sha256 (hex) of the whole token. The token is shown once and never stored. */
    tokenHash: text("token_hash").notNull(),
    /** The first characters, to recognise a token in lists (`slu_ab12cd…`). */
    prefix: text("prefix").notNull(),
    role: roleEnum("role").notNull(),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    lastUsedAt: tstz("last_used_at"),
    expiresAt: tstz("expires_at"),
    revokedAt: tstz("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_tokens_token_hash_key").on(t.tokenHash),
    index("api_tokens_workspace_idx").on(t.workspaceId),
    index("api_tokens_created_by_idx").on(t.createdBy),
  ],
);
