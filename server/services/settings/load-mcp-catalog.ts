import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { mcpToolLists } from "@/db/schema";
import type { McpServerCatalog } from "@/lib/workflow/validate";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

/**
 * Internal, for validation with workspace context: the configured MCP servers by name, each with
 * its cached tool list when one was recorded for the server's current URL (else `null`: unknown,
 * so tool names are not checked).
 */
export async function loadMcpCatalog(
  db: Queryable,
  workspaceId: string,
): Promise<McpServerCatalog> {
  const { mcpServers } = parseWorkspaceSettings(await readRawSettings(db, workspaceId));
  if (mcpServers.length === 0) return {};
  const cached = await db
    .select({ server: mcpToolLists.server, url: mcpToolLists.url, tools: mcpToolLists.tools })
    .from(mcpToolLists)
    .where(eq(mcpToolLists.workspaceId, workspaceId));
  const catalog: McpServerCatalog = {};
  for (const server of mcpServers) {
    const row = cached.find((c) => c.server === server.name && c.url === server.url);
    catalog[server.name] = { tools: row ? row.tools : null };
  }
  return catalog;
}
