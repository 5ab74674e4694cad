/**
 * A fake MCP server (streamable HTTP) on 127.0.0.1 for tests. It requires the session id it
 * hands out on initialize, answers as JSON or as an event stream (with a notification before the
 * response, and the stream left open in "sse-open" mode), and serves a few tools.
 */
import { sendJson, startHttpServer, type LocalServer } from "./local-http";

export interface FakeMcp extends LocalServer {
  url: string;
  calls: Array<{ name: string; arguments: unknown }>;
  methods: string[];
  /** The next N `tools/call` requests answer 503 (a transport failure), then calls work again. */
  failNextCalls: number;
}

export interface FakeMcpOptions {
  /**
   * Also serve the `tool` step's test tools: `weather` (structured content, requires `city`) and
   * `slow` (answers after `ms` milliseconds).
   */
  extended?: boolean;
}

const EXTENDED_TOOLS = [
  {
    name: "weather",
    description: "Current weather of a city",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string" } },
      required: ["city"],
    },
  },
  { name: "slow", description: "Answers after ms milliseconds", inputSchema: { type: "object" } },
];

const TOOLS = [
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  { name: "echo", description: "Echoes its input", inputSchema: { type: "object" } },
  { name: "explode", description: "Always fails", inputSchema: { type: "object" } },
];

export async function startFakeMcp(
  mode: "json" | "sse" | "sse-open" = "json",
  pageSize = 2,
  options: FakeMcpOptions = {},
): Promise<FakeMcp> {
  const sessionId = `sess-${Math.random().toString(36).slice(2)}`;
  const calls: FakeMcp["calls"] = [];
  const methods: string[] = [];
  const tools = options.extended ? [...TOOLS, ...EXTENDED_TOOLS] : TOOLS;
  const state = { failNextCalls: 0 };
  const server = await startHttpServer(async (req, res, body) => {
    if (req.method === "DELETE") {
      res.writeHead(204);
      return res.end();
    }
    const msg = JSON.parse(body) as {
      id?: number;
      method: string;
      params?: Record<string, unknown>;
    };
    methods.push(msg.method);
    const accept = String(req.headers.accept ?? "");
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return sendJson(res, 406, { error: "bad accept" });
    }
    if (msg.method !== "initialize" && req.headers["mcp-session-id"] !== sessionId) {
      return sendJson(res, 400, {
        jsonrpc: "2.0",
        id: msg.id ?? null,
        error: { code: -32000, message: "missing session" },
      });
    }
    if (msg.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    if (msg.method === "tools/call" && state.failNextCalls > 0) {
      state.failNextCalls--;
      return sendJson(res, 503, { error: "temporarily unavailable" });
    }
    let result: unknown;
    let error: { code: number; message: string } | undefined;
    switch (msg.method) {
      case "initialize":
        result = {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "fake-mcp", version: "1" },
        };
        break;
      case "tools/list": {
        const start = Number(msg.params?.cursor ?? 0);
        const page = tools.slice(start, start + pageSize);
        result = {
          tools: page,
          ...(start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {}),
        };
        break;
      }
      case "tools/call": {
        const name = String(msg.params?.name);
        const args = (msg.params?.arguments ?? {}) as Record<string, unknown>;
        calls.push({ name, arguments: args });
        if (name === "add")
          result = {
            content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }],
            isError: false,
          };
        else if (name === "echo")
          result = { content: [{ type: "text", text: JSON.stringify(args) }], isError: false };
        else if (name === "explode")
          result = { content: [{ type: "text", text: "kaboom" }], isError: true };
        else if (options.extended && name === "weather") {
          const weather = { city: String(args.city), tempC: 21, unit: args.unit ?? "C" };
          result = {
            content: [{ type: "text", text: `${weather.city}: ${weather.tempC} degrees` }],
            structuredContent: weather,
            isError: false,
          };
        } else if (options.extended && name === "slow") {
          await new Promise((r) => setTimeout(r, Number(args.ms ?? 0)));
          result = { content: [{ type: "text", text: "done" }], isError: false };
        } else error = { code: -32602, message: `Unknown tool: ${name}` };
        break;
      }
      default:
        error = { code: -32601, message: "Method not found" };
    }
    const response = { jsonrpc: "2.0", id: msg.id, ...(error ? { error } : { result }) };
    const headers: Record<string, string> =
      msg.method === "initialize" ? { "mcp-session-id": sessionId } : {};
    if (mode === "json") return sendJson(res, 200, response, headers);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...headers,
    });
    res.write(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } })}\n\n`,
    );
    res.write(`event: message\ndata: ${JSON.stringify(response)}\n\n`);
    if (mode === "sse") res.end();
  });
  return {
    ...server,
    url: `${server.origin}/mcp`,
    calls,
    methods,
    get failNextCalls() {
      return state.failNextCalls;
    },
    set failNextCalls(n: number) {
      state.failNextCalls = n;
    },
  };
}
