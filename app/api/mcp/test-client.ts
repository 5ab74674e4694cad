/**
 * The MCP tests' agent: the official SDK client whose transport calls the route handler in this
 * process (a custom fetch), so every call goes through authentication, the server and the tools.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import * as route from "./route";

/** fetch for the SDK transport: every request goes to the route handler in this process. */
async function inProcessFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const req = new Request(url, init);
  if (req.method === "POST") return route.POST(req);
  if (req.method === "DELETE") return route.DELETE();
  return route.GET();
}

/** Connects clients (with a bearer token, or none) and closes them all after each test. */
export function mcpClients(name = "vitest-agent") {
  const open: Client[] = [];
  return {
    async connect(bearer?: string): Promise<Client> {
      const client = new Client({ name, version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
        fetch: inProcessFetch,
        requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
      });
      await client.connect(transport);
      open.push(client);
      return client;
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((c) => c.close()));
    },
  };
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured answer of a successful call (fails the test with the error text otherwise). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON answers freely
export async function ok<T = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const r = await call(client, name, args);
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as T;
}

/** The text of a refused call (fails the test if the call succeeded). */
export function errorText(r: CallToolResult): string {
  expect(r.isError).toBe(true);
  return (r.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
}
