import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authenticateRequest, domainErrorResponse, errorResponse } from "../http/api";
import { createMcpServer } from "./server";

/**
 * `POST /api/mcp`: authenticates the API token exactly like /api/v1 (401 JSON envelope without
 * one), then serves the JSON-RPC message(s) with a fresh server and a stateless Streamable HTTP
 * transport answering plain JSON (`enableJsonResponse`): no session ids, no SSE stream to keep.
 */
export async function handleMcpPost(req: Request): Promise<Response> {
  let server: ReturnType<typeof createMcpServer> | undefined;
  try {
    // Every role may connect; each tool checks its own minimum (tools.ts).
    const ctx = await authenticateRequest(req, "viewer");
    server = createMcpServer(ctx, { signal: req.signal });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(req);
  } catch (e) {
    return domainErrorResponse(e);
  } finally {
    // In JSON mode the response is complete once handleRequest resolves.
    await server?.close();
  }
}

/**
 * GET (a server-to-client SSE stream) and DELETE (ending a session) have nothing to serve on a
 * stateless server; the Streamable HTTP spec answers them 405.
 */
export function mcpMethodNotAllowed(): Response {
  return errorResponse(
    405,
    "method_not_allowed",
    "This MCP endpoint is stateless: send JSON-RPC messages with POST",
    undefined,
    { allow: "POST" },
  );
}
