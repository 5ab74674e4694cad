import { afterEach, describe, expect, it } from "vitest";
import { startFakeMcp, type FakeMcp } from "../testing/fake-mcp";
import { McpClient, McpError, parseSseData } from "./mcp-client";

const outbound = { allowedPrivateHosts: ["127.0.0.1"] };
let server: FakeMcp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("MCP client (streamable HTTP)", () => {
  for (const mode of ["json", "sse", "sse-open"] as const) {
    it(`initializes, lists tools across pages and calls them (${mode})`, async () => {
      server = await startFakeMcp(mode);
      const client = await McpClient.connect(server.url, { outbound, timeoutMs: 5000 });
      expect(client.serverInfo.name).toBe("fake-mcp");
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["add", "echo", "explode"]);
      const sum = await client.callTool("add", { a: 2, b: 40 });
      expect(sum).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
      const failed = await client.callTool("explode", {});
      expect(failed.isError).toBe(true);
      await expect(client.callTool("nope", {})).rejects.toThrow(/Unknown tool: nope/);
      await client.close();
      expect(server.methods.slice(0, 2)).toEqual(["initialize", "notifications/initialized"]);
      // Every request after initialize carried the session id (the server refuses otherwise).
      expect(
        server.requests
          .filter((r) => r.method === "POST")
          .slice(1)
          .every((r) => r.headers["mcp-session-id"]),
      ).toBe(true);
      expect(server.requests.at(-1)?.method).toBe("DELETE");
    });
  }

  it("goes through the SSRF guard", async () => {
    server = await startFakeMcp("json");
    const err = await McpClient.connect(server.url, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toMatch(/loopback/);
    expect(server.requests).toHaveLength(0);
  });

  it("parses multi-line SSE data and ignores incomplete events", () => {
    expect(parseSseData("event: a\ndata: 1\ndata: 2\n\ndata: 3\n\ndata: partial")).toEqual([
      "1\n2",
      "3",
    ]);
    expect(parseSseData("data: x\r\n\r\n")).toEqual(["x"]);
  });
});
