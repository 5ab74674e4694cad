import "server-only";
import { sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { mcpToolLists, type CachedMcpTool } from "@/db/schema";
import { requiredArguments } from "../../integrations/mcp-client";

const MAX_CACHED_TOOLS = 500;

/**
 * Internal (the caller already acts in the workspace: a `tool` step's attempt or an admin's
 * "Test connection"). Remembers the tool list a server just returned, for publish-time checks.
 */
export async function recordMcpTools(
  db: Queryable,
  workspaceId: string,
  server: { name: string; url: string },
  tools: ReadonlyArray<{
    name: string;
    description?: string;
    inputSchema?: Record<string, unknown>;
  }>,
  now: Date,
): Promise<void> {
  const cached: CachedMcpTool[] = tools.slice(0, MAX_CACHED_TOOLS).map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description.slice(0, 500) } : {}),
    required: requiredArguments(t.inputSchema),
  }));
  await db
    .insert(mcpToolLists)
    .values({ workspaceId, server: server.name, url: server.url, tools: cached, listedAt: now })
    .onConflictDoUpdate({
      target: [mcpToolLists.workspaceId, mcpToolLists.server],
      set: { url: server.url, tools: cached, listedAt: sql`excluded.listed_at` },
    });
}
