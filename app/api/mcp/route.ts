import { securedRoute } from "@/server/http/security-headers";
import { handleMcpPost, mcpMethodNotAllowed } from "@/server/mcp/handler";

export const dynamic = "force-dynamic";

/** The MCP server (Streamable HTTP, stateless, API-token auth): docs/mcp.md. */
export const POST = securedRoute((req: Request) => handleMcpPost(req));
export const GET = securedRoute(() => mcpMethodNotAllowed());
export const DELETE = securedRoute(() => mcpMethodNotAllowed());
