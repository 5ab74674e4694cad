import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { PayloadTooLargeError } from "../errors";
import {
  authenticateRequest,
  domainErrorResponse,
  errorResponse,
  refuseDeepJson,
} from "../http/api";
import { readBodyCapped } from "@/lib/server-only/read-body";
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
    const checked = await readMcpBody(req);
    server = createMcpServer(ctx, { signal: req.signal });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    await server.connect(transport);
    return await transport.handleRequest(checked);
  } catch (e) {
    return domainErrorResponse(e);
  } finally {
    // In JSON mode the response is complete once handleRequest resolves.
    await server?.close();
  }
}

/** The SDK's own default cap, kept: `run_workflow` may carry an inline definition (2 MiB). */
const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Reads the JSON-RPC body with the cap and refuses nesting past the run input limit before the
 * SDK parses it (tool arguments sit under `params.arguments`, a batch adds its array); returns
 * the request rebuilt from the bytes read, for the transport to parse as usual.
 */
async function readMcpBody(req: Request): Promise<Request> {
  const tooLarge = `Request body is larger than ${MCP_MAX_BODY_BYTES} bytes`;
  if (Number(req.headers.get("content-length") ?? "0") > MCP_MAX_BODY_BYTES)
    throw new PayloadTooLargeError(tooLarge);
  const body = await readBodyCapped(req, MCP_MAX_BODY_BYTES);
  if (body === null) throw new PayloadTooLargeError(tooLarge);
  const text = body.toString("utf8");
  refuseDeepJson(text, "The tool call", /^\s*\[/.test(text) ? 3 : 2);
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: new Uint8Array(body),
    signal: req.signal,
  });
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
