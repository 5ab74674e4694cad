import "server-only";
import { and, eq } from "drizzle-orm";
import { apiTokens } from "@/db/schema";
import { ForbiddenError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { createProposal } from "./create-proposal";

/**
 * A proposal made by an agent through the MCP server: createProposal with the `mcp` origin. The
 * MCP server is stateless, so the client's self-reported name is not known at call time; the
 * client is identified by the API token it connects with (id and name), which is also what
 * makes it accountable (the token's creator, with the token's role).
 */
export async function createMcpProposal({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  if (ctx.actor.type !== "token")
    throw new ForbiddenError("MCP proposals are made with an API token");
  const tokenId = ctx.actor.tokenId;
  const [token] = await ctx.db
    .select({ name: apiTokens.name })
    .from(apiTokens)
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.workspaceId, ws.id)));
  return createProposal({
    ctx,
    input,
    origin: {
      kind: "mcp",
      clientId: tokenId,
      clientName: `MCP client (API token "${token?.name ?? tokenId}")`,
    },
  });
}
