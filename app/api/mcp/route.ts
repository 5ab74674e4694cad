import { securedRoute } from "@/server/http/security-headers";
import { handleMcpPost, mcpMethodNotAllowed } from "@/server/mcp/handler";

export const dynamic = "force-dynamic";

/** The MCP server (Streamable HTTP, stateless, API-token auth): docs/mcp.md. */
export const POST = securedRoute((req: Request) => handleMcpPost(req));
export const GET = securedRoute(() => mcpMethodNotAllowed());
export const DELETE = securedRoute(() => mcpMethodNotAllowed());
// Every other method too: Next's own answer for a method a route lacks carries none of the API
// headers (no CSP, no Cache-Control: no-store).
export const PUT = securedRoute(() => mcpMethodNotAllowed());
export const PATCH = securedRoute(() => mcpMethodNotAllowed());
export const OPTIONS = securedRoute(
  () => new Response(null, { status: 204, headers: { allow: "OPTIONS, POST" } }),
);
