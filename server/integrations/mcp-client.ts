import "server-only";
import { parseRetryAfter } from "@/lib/net/retry-after";
import type { OutboundPolicy } from "../net/outbound-host";
import { safeFetch, type SafeResponse } from "../net/safe-fetch";
import { SafeFetchError } from "../net/safe-fetch-error";

/**
 * A Model Context Protocol client over the streamable HTTP transport, enough for agent tools:
 * `initialize`, `notifications/initialized`, `tools/list` (with pagination) and `tools/call`.
 * Each JSON-RPC request is a POST; the server answers with `application/json` or with a
 * `text/event-stream` carrying the response (possibly after notifications), and may assign an
 * `Mcp-Session-Id` that every later request must echo. Outbound through safe-fetch.
 */

export const MCP_PROTOCOL_VERSION = "2025-06-18";
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpContent {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface McpCallResult {
  content: McpContent[];
  isError: boolean;
  structuredContent?: unknown;
}

/** The argument names a tool's input schema marks required (top level only). */
export function requiredArguments(inputSchema: Record<string, unknown> | undefined): string[] {
  const required = inputSchema?.required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : [];
}

export class McpError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly extra: {
      status?: number;
      rpcCode?: number;
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "McpError";
  }
}

export interface McpConnectOptions {
  headers?: Record<string, string>;
  outbound?: OutboundPolicy;
  signal?: AbortSignal;
  /** Per request. Default 60 s. */
  timeoutMs?: number;
  clientInfo?: { name: string; version: string };
}

interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Splits an SSE body into the data of each complete event. */
export function parseSseData(text: string): string[] {
  const events: string[] = [];
  for (const block of text.replace(/\r\n?/g, "\n").split("\n\n").slice(0, -1)) {
    const data = block
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""));
    if (data.length) events.push(data.join("\n"));
  }
  return events;
}

function findResponse(messages: unknown[], id: number): JsonRpcResponse | undefined {
  for (const m of messages.flat()) {
    if (
      m &&
      typeof m === "object" &&
      (m as JsonRpcResponse).id === id &&
      ("result" in m || "error" in m)
    ) {
      return m as JsonRpcResponse;
    }
  }
  return undefined;
}

function sseMessages(text: string): unknown[] {
  const out: unknown[] = [];
  for (const data of parseSseData(text)) {
    try {
      out.push(JSON.parse(data));
    } catch {
      // Non-JSON events (comments, keep-alives) are not JSON-RPC messages.
      continue;
    }
  }
  return out;
}

export class McpClient {
  private sessionId: string | undefined;
  private protocolVersion = MCP_PROTOCOL_VERSION;
  private nextId = 1;
  serverInfo: { name?: string; version?: string } = {};

  private constructor(
    readonly url: string,
    private readonly options: McpConnectOptions,
  ) {}

  /** Opens a session: initialize, then the initialized notification. */
  static async connect(url: string, options: McpConnectOptions = {}): Promise<McpClient> {
    const client = new McpClient(url, options);
    const result = (await client.request("initialize", {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: options.clientInfo ?? { name: "sluice", version: "0.1.0" },
    })) as { protocolVersion?: unknown; serverInfo?: { name?: string; version?: string } };
    if (typeof result?.protocolVersion === "string")
      client.protocolVersion = result.protocolVersion;
    client.serverInfo = result?.serverInfo ?? {};
    await client.notify("notifications/initialized");
    return client;
  }

  async listTools(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = (await this.request("tools/list", cursor ? { cursor } : {})) as {
        tools?: unknown;
        nextCursor?: unknown;
      };
      if (!Array.isArray(result?.tools))
        throw new McpError(`MCP server ${this.url} returned no tool list`, false);
      for (const t of result.tools as Array<Record<string, unknown>>) {
        if (typeof t?.name !== "string") continue;
        tools.push({
          name: t.name,
          description: typeof t.description === "string" ? t.description : undefined,
          inputSchema:
            t.inputSchema && typeof t.inputSchema === "object"
              ? (t.inputSchema as Record<string, unknown>)
              : { type: "object" },
        });
      }
      if (typeof result.nextCursor !== "string" || result.nextCursor === "") break;
      cursor = result.nextCursor;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<McpCallResult> {
    const result = (await this.request("tools/call", { name, arguments: args })) as {
      content?: unknown;
      isError?: unknown;
      structuredContent?: unknown;
    };
    return {
      content: Array.isArray(result?.content) ? (result.content as McpContent[]) : [],
      isError: result?.isError === true,
      ...(result?.structuredContent !== undefined
        ? { structuredContent: result.structuredContent }
        : {}),
    };
  }

  /** Ends the session (best effort: servers may not support DELETE). */
  async close(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.post(undefined, "DELETE");
    } catch {
      // The session expires on the server anyway; nothing to recover here.
      return;
    }
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = {
      ...this.options.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": this.protocolVersion,
    };
    if (this.sessionId) h["mcp-session-id"] = this.sessionId;
    return h;
  }

  private async post(
    body: unknown,
    method = "POST",
    stopWhen?: (b: Buffer) => boolean,
  ): Promise<SafeResponse> {
    let res: SafeResponse;
    try {
      res = await safeFetch(this.url, {
        ...this.options.outbound,
        method,
        headers: this.headers(),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: this.options.signal,
        timeoutMs: this.options.timeoutMs ?? 60_000,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        stopWhen,
      });
    } catch (e) {
      if (e instanceof SafeFetchError) {
        throw new McpError(`MCP server ${this.url}: ${e.message}`, e.retryable, { cause: e });
      }
      throw e;
    }
    const session = res.headers["mcp-session-id"];
    if (session) this.sessionId = session;
    if (res.status >= 400) {
      const text = res.text().slice(0, 300);
      const retryable = res.status === 429 || res.status >= 500;
      const hint = res.status === 404 && this.sessionId ? " (the MCP session expired)" : "";
      throw new McpError(
        `MCP server ${this.url} answered ${res.status}${hint}: ${text}`,
        retryable,
        {
          status: res.status,
          retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
        },
      );
    }
    return res;
  }

  private async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.post({ jsonrpc: "2.0", method, ...(params ? { params } : {}) });
  }

  private async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const isSse = (r: SafeResponse) =>
      (r.headers["content-type"] ?? "").includes("text/event-stream");
    let scanned = 0;
    // Event streams may stay open after our response: stop reading once it has arrived. The
    // body is only re-parsed when a new event has completed since the last look.
    const stopWhen = (buf: Buffer) => {
      const from = Math.max(0, scanned - 3);
      scanned = buf.length;
      if (buf.indexOf("\n\n", from) < 0 && buf.indexOf("\r\n\r\n", from) < 0) return false;
      return findResponse(sseMessages(buf.toString("utf8")), id) !== undefined;
    };
    const res = await this.post({ jsonrpc: "2.0", id, method, params }, "POST", stopWhen);
    const text = res.text();
    let messages: unknown[];
    if (isSse(res)) messages = sseMessages(text);
    else {
      try {
        messages = [JSON.parse(text)];
      } catch {
        throw new McpError(
          `MCP server ${this.url} sent a response that is not JSON: ${text.slice(0, 200)}`,
          false,
        );
      }
    }
    const response = findResponse(messages, id);
    if (!response) throw new McpError(`MCP server ${this.url} sent no response to ${method}`, true);
    if (response.error) {
      throw new McpError(
        `MCP ${method} failed: ${response.error.message} (code ${response.error.code})`,
        false,
        {
          rpcCode: response.error.code,
        },
      );
    }
    return response.result;
  }
}
