import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "@/server/errors";
import { createSecret } from "@/server/services/secrets/create-secret";
import { testMcpServer } from "@/server/services/settings/test-mcp-server";
import { updateMcpServers } from "@/server/services/settings/update-mcp-servers";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { startFakeMcp, type FakeMcp } from "@/server/testing/fake-mcp";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

/** `tool` steps through the real executor against a real local MCP server. */
let e: RunHarness;
let mcp: FakeMcp;
const KEY = "mcp-key-0123456789abcdef";

beforeAll(async () => {
  e = await startRunHarness("tool-step");
  mcp = await startFakeMcp("sse", 2, { extended: true });
  const admin = e.ws.ctx("admin");
  await updateWorkspacePolicies({
    ctx: admin,
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  await createSecret({ ctx: admin, input: { name: "MCP_KEY", value: KEY } });
  await updateMcpServers({
    ctx: admin,
    input: { mcpServers: [{ name: "fake", url: mcp.url, apiKeySecret: "MCP_KEY" }] },
  });
});
afterAll(async () => {
  await mcp?.close();
  await e?.close();
});

const toolStep = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "call",
  type: "tool",
  config: { server: "fake", ...config },
  ...extra,
});

describe("tool step in runs", () => {
  it("calls the tool with templated arguments, applies the transform, and later steps read output.data", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Weather",
      inputs: { city: { type: "string", required: true } },
      steps: [
        toolStep({
          tool: "weather",
          arguments: { city: "{{ input.city }}" },
          transform: "export default function (w) { return { ...w, warm: w.tempC > 15 }; }",
        }),
        { id: "say", type: "transform", config: { value: "{{ steps.call.output.data.city }}" } },
      ],
      output: { weather: "{{ steps.call.output.data }}", said: "{{ steps.say.output.data }}" },
    });
    const run = await e.waitFor(await e.start(wf, { city: "Lima" }), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({
      weather: { city: "Lima", tempC: 21, unit: "C", warm: true },
      said: "Lima",
    });
    const [call] = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(call!.output).toMatchObject({ type: "tool", meta: { text: "Lima: 21 degrees" } });
    // The server's API key went out as a bearer token and is never stored.
    expect(mcp.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(await e.steps(run.id))).not.toContain(KEY);
  });

  it("retries a transport failure (operational) and completes", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Flaky tool",
      steps: [
        toolStep(
          { tool: "add", arguments: { a: 20, b: 22 } },
          { retry: { maxAttempts: 3, backoffMs: 1000 } },
        ),
      ],
      output: "{{ steps.call.output.data }}",
    });
    mcp.failNextCalls = 1;
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"], { advanceMs: 1_000 });
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(42);
    const attempts = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(attempts.map((a) => [a.attempt, a.status, a.failureClass])).toEqual([
      [1, "failed", "operational"],
      [2, "completed", null],
    ]);
  });

  it("fails the step with the tool's message on a tool error, without retrying", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Exploding tool",
      steps: [toolStep({ tool: "explode" }, { retry: { maxAttempts: 3, backoffMs: 1000 } })],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const attempts = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.failureClass).toBe("user");
    expect((attempts[0]!.error as { message: string }).message).toBe(
      'Tool "explode" on MCP server "fake" reported an error: kaboom',
    );
  });

  it("times out after timeoutMs (operational)", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Slow tool",
      steps: [toolStep({ tool: "slow", arguments: { ms: 5_000 }, timeoutMs: 300 })],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const [attempt] = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(attempt!.failureClass).toBe("operational");
    expect((attempt!.error as { message: string }).message).toMatch(/did not answer within 300 ms/);
  });

  it("refuses a missing tool at run time, and at publish time once the tool list is cached", async () => {
    // The runs above cached the server's tool list; a fresh server entry has none yet.
    await updateMcpServers({
      ctx: e.ws.ctx("admin"),
      input: {
        mcpServers: [
          { name: "fake", url: mcp.url, apiKeySecret: "MCP_KEY" },
          { name: "other", url: `${mcp.origin}/other` },
        ],
      },
    });
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Missing tool",
      steps: [{ id: "call", type: "tool", config: { server: "other", tool: "subtract" } }],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const [attempt] = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(attempt!.failureClass).toBe("user");
    expect((attempt!.error as { message: string }).message).toMatch(
      /MCP server "other" has no tool named "subtract" \(it offers: add, echo, explode, weather, slow\)/,
    );

    // Now "other"'s list is cached: publishing the same step, or one missing a required argument,
    // is refused with issues naming the field.
    const publish = (config: Record<string, unknown>) =>
      e.workflow({ schemaVersion: 1, name: "Checked", steps: [toolStep(config)] });
    const missingTool = await publish({ server: "other", tool: "subtract" }).catch(
      (x: unknown) => x,
    );
    expect(missingTool).toBeInstanceOf(ValidationError);
    expect((missingTool as Error).message).toMatch(/has no tool named "subtract"/);
    const missingArg = await publish({ server: "fake", tool: "weather" }).catch((x: unknown) => x);
    expect(missingArg).toBeInstanceOf(ValidationError);
    expect((missingArg as Error).message).toMatch(/requires the argument "city"/);
    const unknownServer = await publish({ server: "nope", tool: "add" }).catch((x: unknown) => x);
    expect((unknownServer as Error).message).toMatch(/no MCP server named "nope"/);
  });

  it('"Test connection" lists the tools and fills the cache of a saved server', async () => {
    await updateMcpServers({
      ctx: e.ws.ctx("admin"),
      input: { mcpServers: [{ name: "fresh", url: `${mcp.origin}/fresh` }] },
    });
    const result = await testMcpServer({
      ctx: e.ws.ctx("admin"),
      input: { name: "fresh", url: `${mcp.origin}/fresh` },
    });
    expect(result).toMatchObject({ ok: true });
    expect(result.message).toMatch(/5 tools: add, echo, explode, weather, slow/);
    await expect(
      e.workflow({
        schemaVersion: 1,
        name: "Fresh",
        steps: [{ id: "call", type: "tool", config: { server: "fresh", tool: "nope" } }],
      }),
    ).rejects.toThrow(/has no tool named "nope"/);
  });
});
