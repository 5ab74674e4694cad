import { handleMcpPost, mcpMethodNotAllowed } from "@/server/mcp/handler";

export const dynamic = "force-dynamic";

/** The MCP server (Streamable HTTP, stateless, API-token auth): docs/mcp.md. */
export const POST = (req: Request) => handleMcpPost(req);
export const GET = () => mcpMethodNotAllowed();
export const DELETE = () => mcpMethodNotAllowed();
