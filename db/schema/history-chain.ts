import { bigint, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { workspaces } from "./workspaces";

/**
 * Tamper-evident history (issue #29 item 7): one hash chain per workspace over published
 * versions, proposal reviews and applies, approval decisions and audit rows. Each entry holds
 * the covered row's content hash and `hash = sha256(prev_hash, seq, kind, row_id, content_hash)`;
 * appended in the same transaction as the row (server/services/history/chain-history.ts).
 * Append-only (trigger in the migration); a workspace's deletion takes its chain with it.
 */
export const historyChain = pgTable(
  "history_chain",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    /** lib/schemas/history.ts HISTORY_KINDS */
    kind: text("kind").notNull(),
    rowId: text("row_id").notNull(),
    contentHash: text("content_hash").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.seq] }),
    uniqueIndex("history_chain_row_key").on(t.workspaceId, t.kind, t.rowId),
  ],
);

/**
 * The last link of each workspace's chain. Appending locks this row, so two transactions
 * appending to one workspace's chain serialise; it also makes a truncated chain tail visible.
 */
export const historyChainHeads = pgTable("history_chain_heads", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
  updatedAt: tstz("updated_at").notNull().defaultNow(),
});
