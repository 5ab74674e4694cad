/**
 * Task steps completed by agents, over the real transports and the real engine: the HTTP API with
 * an API token (assigned by token id) and the MCP server driven by the official SDK client through
 * the route handler — list my tasks, complete with output (validated), fail with a reason.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import * as mcpRoute from "../../mcp/route";
import * as listRoute from "./route";
import * as completeRoute from "./[id]/complete/route";
import * as failRoute from "./[id]/fail/route";

let e: RunHarness;
/** The agent: a viewer token the task names by id. `other` is a viewer token it does not name. */
let agent: { id: string; token: string };
let other: { id: string; token: string };
beforeAll(async () => {
  e = await startRunHarness("tasksapi");
  agent = await createApiToken({
    ctx: e.ws.ctx("admin"),
    input: { name: "agent", role: "viewer" },
  });
  other = await createApiToken({
    ctx: e.ws.ctx("admin"),
    input: { name: "other", role: "viewer" },
  });
});
afterAll(async () => {
  await e?.close();
});

/**
 *   triage (task for the agent token) ──▶ route (transform: uses triage's output)
 *        └──error──▶ fallback
 */
const triageDef = () => ({
  schemaVersion: 1,
  name: "Triage",
  inputs: { issue: { type: "string", default: "#7" } },
  steps: [
    {
      id: "triage",
      type: "task",
      config: {
        instructions: "Label issue {{ input.issue }}",
        assignee: { tokens: [agent.id] },
        outputSchema: { label: { type: "string", required: true, enum: ["bug", "feature"] } },
      },
    },
    {
      id: "route",
      type: "transform",
      config: { value: "label={{ steps.triage.output.data.label }}" },
    },
    { id: "fallback", type: "transform", config: { value: "fallback" } },
  ],
  edges: [
    { from: "triage", to: "route" },
    { from: "triage", port: "error", to: "fallback" },
  ],
});

const pendingTask = (runId: string) => e.pendingTask(runId);

type Handler = (req: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function http(handler: Handler, token: string, path: string, params = {}, body?: unknown) {
  const res = await handler(
    new Request(`http://localhost/api/v1${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json() };
}

async function mcp(bearer: string) {
  const client = new Client({ name: "vitest-agent", version: "1.0.0" });
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const req = new Request(url, init);
    return req.method === "POST" ? mcpRoute.POST(req) : mcpRoute.GET();
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
      fetch,
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}
const tool = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content as { text: string }[]).map((x) => x.text).join("\n");

describe("tasks over HTTP", () => {
  it("the assigned token lists its task, gets 400 naming the field, then completes it; the run uses the output", async () => {
    const wf = await e.workflow(triageDef());
    const runId = await e.start(wf);
    const t = await pendingTask(runId);

    const mine = await http(listRoute.GET as Handler, agent.token, "/tasks?mine=1");
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((i: { id: string }) => i.id)).toContain(t.id);
    expect(mine.body.items.find((i: { id: string }) => i.id === t.id)).toMatchObject({
      instructions: "Label issue #7",
      outputSchema: { label: { type: "string", required: true } },
      canAct: true,
    });
    expect((await http(listRoute.GET as Handler, other.token, "/tasks?mine=1")).body.items).toEqual(
      [],
    );

    const refused = await http(
      completeRoute.POST as Handler,
      other.token,
      `/tasks/${t.id}/complete`,
      { id: t.id },
      { output: { label: "bug" } },
    );
    expect(refused.status).toBe(403);
    const invalid = await http(
      completeRoute.POST as Handler,
      agent.token,
      `/tasks/${t.id}/complete`,
      { id: t.id },
      { output: { label: "question" } },
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.issues[0]).toMatchObject({ path: ["output", "label"] });
    expect(invalid.body.error.message).toMatch(
      /Output field "label" must be one of "bug", "feature"/,
    );

    const done = await http(
      completeRoute.POST as Handler,
      agent.token,
      `/tasks/${t.id}/complete`,
      { id: t.id },
      { output: { label: "bug" } },
    );
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: "completed",
      finishedBy: { type: "token", id: agent.id, via: "api" },
    });
    const again = await http(
      completeRoute.POST as Handler,
      agent.token,
      `/tasks/${t.id}/complete`,
      { id: t.id },
      { output: { label: "feature" } },
    );
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already completed by .*API token/);

    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.route!.output).toMatchObject({ data: "label=bug" });
    expect(steps.fallback!.status).toBe("skipped");
  });

  it("fail with a reason sends the run down the error edge", async () => {
    const runId = await e.start(await e.workflow(triageDef()));
    const t = await pendingTask(runId);
    const noReason = await http(
      failRoute.POST as Handler,
      agent.token,
      `/tasks/${t.id}/fail`,
      { id: t.id },
      {},
    );
    expect(noReason.status).toBe(400);
    const failed = await http(
      failRoute.POST as Handler,
      agent.token,
      `/tasks/${t.id}/fail`,
      { id: t.id },
      { reason: "Not an issue" },
    );
    expect(failed.status).toBe(200);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.triage!.error).toMatchObject({ reason: "Not an issue" });
    expect(steps.fallback!.status).toBe("completed");
  });
});

describe("tasks over MCP", () => {
  it("current_tasks shows my task with its instructions and schema; complete_task resumes the run", async () => {
    const runId = await e.start(await e.workflow(triageDef()));
    const t = await pendingTask(runId);
    const client = await mcp(agent.token);
    try {
      const current = await tool(client, "current_tasks", {});
      expect(current.isError).toBeFalsy();
      const items = (current.structuredContent as { items: Record<string, unknown>[] }).items;
      expect(items.find((i) => i.id === t.id)).toMatchObject({
        instructions: "Label issue #7",
        outputSchema: { label: { enum: ["bug", "feature"] } },
      });
      const bad = await tool(client, "complete_task", { taskId: t.id, output: {} });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/Output field "label" is required/);
      const ok = await tool(client, "complete_task", {
        taskId: t.id,
        output: { label: "feature" },
      });
      expect(ok.isError, text(ok)).toBeFalsy();
      expect(ok.structuredContent).toMatchObject({
        status: "completed",
        finishedBy: { via: "mcp" },
      });
      expect((await tool(client, "current_tasks", {})).structuredContent).toMatchObject({
        items: [],
      });
    } finally {
      await client.close();
    }
    await e.waitFor(runId, ["completed"]);
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.route!.output).toMatchObject({ data: "label=feature" });
  });

  it("fail_task fails the step with the reason; another token may not act", async () => {
    const runId = await e.start(await e.workflow(triageDef()));
    const t = await pendingTask(runId);
    const stranger = await mcp(other.token);
    const agentClient = await mcp(agent.token);
    try {
      const refused = await tool(stranger, "fail_task", { taskId: t.id, reason: "mine now" });
      expect(text(refused)).toMatch(/assigned to listed API tokens/);
      const failed = await tool(agentClient, "fail_task", { taskId: t.id, reason: "duplicate" });
      expect(failed.isError, text(failed)).toBeFalsy();
    } finally {
      await stranger.close();
      await agentClient.close();
    }
    await e.waitFor(runId, ["completed"]);
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.triage).toMatchObject({ status: "failed", error: { reason: "duplicate" } });
  });
});
