import { jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./common";
import { workspaces } from "./workspaces";

/** One tool as cached: enough for publish-time checks of `tool` steps. */
export interface CachedMcpTool {
  name: string;
  description?: string;
  /** Argument names the tool's input schema marks required. */
  required: string[];
}

/**
 * The last tool list seen from each configured MCP server (filled by `tool` steps and by
 * "Test connection"). A cache, not a source of truth: validation uses it only when its `url`
 * still equals the server's configured URL, and an absent row means "not known yet".
 */
export const mcpToolLists = pgTable(
  "mcp_tool_lists",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    server: text("server").notNull(),
    url: text("url").notNull(),
    tools: jsonb("tools").$type<CachedMcpTool[]>().notNull(),
    listedAt: tstz("listed_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.server] })],
);
