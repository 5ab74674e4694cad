import { afterEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { ToolConfig } from "@/lib/workflow/steps";
import { startFakeMcp, type FakeMcp } from "@/server/testing/fake-mcp";
import { failureOf, makeActionContext } from "./testing";
import { toolHandler } from "./tool";
import type { ActionContext, McpToolInfo } from "./types";

const policy = {
  scriptStepsEnabled: false,
  allowedPrivateHosts: ["127.0.0.1"],
  forbiddenStepTypes: [],
};
let mcp: FakeMcp | undefined;
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

async function toolCtx(
  config: Omit<z.input<typeof ToolConfig>, "server">,
  overrides: Partial<ActionContext<z.output<typeof ToolConfig>>> = {},
) {
  mcp ??= await startFakeMcp("json", 10, { extended: true });
  return makeActionContext(
    ToolConfig,
    { server: "fake", ...config },
    {
      policy,
      mcpServer: { name: "fake", url: mcp.url, headers: { authorization: "Bearer k-123" } },
      ...overrides,
    },
  );
}

describe("tool step", () => {
  it("calls the tool and returns its structured content, the text in meta, and caches the list", async () => {
    const listed: McpToolInfo[][] = [];
    const ctx = await toolCtx(
      { tool: "weather", arguments: { city: "Oslo" } },
      { recordMcpTools: async (tools) => void listed.push([...tools]) },
    );
    const out = await toolHandler(ctx);
    expect(out.data).toEqual({ city: "Oslo", tempC: 21, unit: "C" });
    expect(out.meta).toMatchObject({ server: "fake", tool: "weather", text: "Oslo: 21 degrees" });
    expect(mcp!.calls).toEqual([{ name: "weather", arguments: { city: "Oslo" } }]);
    expect(mcp!.requests[0]!.headers.authorization).toBe("Bearer k-123");
    expect(listed[0]!.map((t) => t.name)).toContain("weather");
  });

  it("parses JSON text content when there is no structured content, else keeps the text", async () => {
    const echo = await toolHandler(await toolCtx({ tool: "echo", arguments: { n: 1 } }));
    expect(echo.data).toEqual({ n: 1 });
    const add = await toolHandler(await toolCtx({ tool: "add", arguments: { a: 2, b: 3 } }));
    expect(add.data).toBe(5);
    expect(add.meta).toMatchObject({ text: "5" });
  });

  it("applies the transform in the QuickJS sandbox (with the text in ctx)", async () => {
    const out = await toolHandler(
      await toolCtx({
        tool: "weather",
        arguments: { city: "Rome" },
        transform:
          "export default function (data, ctx) { return { hot: data.tempC > 20, said: ctx.text }; }",
      }),
    );
    expect(out.data).toEqual({ hot: true, said: "Rome: 21 degrees" });
    const broken = await failureOf(
      toolHandler(
        await toolCtx({
          tool: "echo",
          transform: "export default function () { throw new Error('nope'); }",
        }),
      ),
    );
    expect(broken.failureClass).toBe("user");
    expect(broken.message).toMatch(/^The transform failed: .*nope/);
  });

  it("fails with the tool's own message when the tool reports an error (a user error)", async () => {
    const f = await failureOf(toolHandler(await toolCtx({ tool: "explode" })));
    expect(f.failureClass).toBe("user");
    expect(f.message).toBe('Tool "explode" on MCP server "fake" reported an error: kaboom');
  });

  it("refuses a missing tool and a missing required argument before calling", async () => {
    const missing = await failureOf(toolHandler(await toolCtx({ tool: "subtract" })));
    expect(missing.failureClass).toBe("user");
    expect(missing.message).toMatch(/has no tool named "subtract" \(it offers: add, echo, .*\)/);
    const noArg = await failureOf(toolHandler(await toolCtx({ tool: "weather" })));
    expect(noArg.message).toMatch(/requires the argument "city"/);
    expect(mcp!.calls).toEqual([]);
  });

  it("times out as an operational failure after timeoutMs", async () => {
    const started = Date.now();
    const f = await failureOf(
      toolHandler(await toolCtx({ tool: "slow", arguments: { ms: 5_000 }, timeoutMs: 300 })),
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(f.failureClass).toBe("operational");
    expect(f.details.code).toBe("TIMEOUT");
    expect(f.message).toMatch(/did not answer within 300 ms/);
  });

  it("classifies a transport failure (503) as operational", async () => {
    const ctx = await toolCtx({ tool: "add", arguments: { a: 1, b: 1 } });
    mcp!.failNextCalls = 1;
    const f = await failureOf(toolHandler(ctx));
    expect(f.failureClass).toBe("operational");
    expect(f.details.status).toBe(503);
  });

  it("fails clearly without a configured server, and the SSRF guard refuses loopback unless allowed", async () => {
    const none = await failureOf(
      toolHandler(await toolCtx({ tool: "add" }, { mcpServer: undefined })),
    );
    expect(none.message).toMatch(/No MCP server named "fake" is configured/);
    const blocked = await failureOf(
      toolHandler(
        await toolCtx(
          { tool: "add", arguments: { a: 1, b: 1 } },
          { policy: { ...policy, allowedPrivateHosts: [] } },
        ),
      ),
    );
    expect(blocked.failureClass).toBe("user");
    expect(blocked.message).toMatch(/private|loopback|refused|not allowed/i);
    expect(mcp!.requests).toHaveLength(0);
  });
});
