/**
 * Recording mode through the MCP server (SDK client → route handler in-process, real database,
 * the engine's own attempt path): an agent starts a recording, calls http, code, a preset llm and
 * tools of a workspace MCP server with references to earlier results, finishes, and saves the
 * recording as a draft workflow with its references — and the refusals around it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { reapRunsBody } from "@/server/services/runs/reap-runs-body";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import type { Role } from "@/lib/schemas/roles";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { getWorkflow } from "@/server/services/workflows/get-workflow";
import { liveSuggestions } from "@/lib/workflow/recording";
import { listReferenceSuggestions } from "@/server/services/recordings/list-reference-suggestions";
import { getRun } from "@/server/services/runs/get-run";
import { listRuns } from "@/server/services/runs/list-runs";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { updateWorkspaceQuota } from "@/server/services/quotas/update-workspace-quota";
import { updateAdmissionLimits } from "@/server/services/settings/update-admission-limits";
import { listWorkflows } from "@/server/services/workflows/list-workflows";
import { updateMcpServers } from "@/server/services/settings/update-mcp-servers";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { startFakeMcp, type FakeMcp } from "@/server/testing/fake-mcp";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { call, errorText, mcpClients, ok } from "./test-client";

let e: RunHarness;
let other: WorkspaceFixture;
let mcp: FakeMcp;
let api: LocalServer;
const tokens = {} as Record<"viewer" | "editor" | "foreign", string>;
const clients = mcpClients("vitest-recorder");
const connect = clients.connect;

async function token(fx: WorkspaceFixture, by: Role, role: Role) {
  return (await createApiToken({ ctx: fx.ctx(by), input: { name: `rec ${role}`, role } })).token;
}

beforeAll(async () => {
  e = await startRunHarness("recording");
  other = await createWorkspaceFixture(e.db.db, "Other");
  tokens.viewer = await token(e.ws, "admin", "viewer");
  tokens.editor = await token(e.ws, "admin", "editor");
  tokens.foreign = await token(other, "owner", "owner");
  mcp = await startFakeMcp("json");
  api = await startHttpServer((req, res) => {
    if (req.url?.startsWith("/fail")) return sendJson(res, 422, { error: "nope" });
    const city = new URL(req.url ?? "/", "http://x").searchParams.get("city");
    sendJson(res, 200, { order: { id: "ord_42", total: 99, city } });
  });
  const admin = e.ws.ctx("admin");
  await updateWorkspacePolicies({
    ctx: admin,
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  await updateMcpServers({ ctx: admin, input: { mcpServers: [{ name: "fake", url: mcp.url }] } });
});
afterEach(async () => {
  await clients.closeAll();
});
afterAll(async () => {
  await mcp?.close();
  await api?.close();
  await e?.close();
});

describe("recording mode", () => {
  it("records executed calls, a preset and MCP tool calls with references, then saves a valid draft", async () => {
    const agent = await connect(tokens.editor);
    const started = await ok(agent, "start_recording", {
      name: "Order flow",
      input: { city: "Oslo" },
    });
    const rec = started.recordingId as string;

    const fetch = await ok(agent, "record_step", {
      recordingId: rec,
      type: "http",
      id: "fetch",
      config: { url: `${api.origin}/orders?city={{ input.city }}` },
    });
    expect(fetch).toMatchObject({ ok: true, stepId: "fetch" });
    expect(fetch.output.data.body).toEqual({ order: { id: "ord_42", total: 99, city: "Oslo" } });

    const shape = await ok(agent, "record_step", {
      recordingId: rec,
      type: "code",
      config: {
        source: "export default (o) => ({ id: o.id, double: o.total * 2 })",
        input: "@fetch.body.order",
      },
    });
    expect(shape).toMatchObject({
      ok: true,
      stepId: "code",
      output: { data: { id: "ord_42", double: 198 } },
    });
    expect(shape.config.input).toBe("{{ steps.fetch.output.data.body.order }}");

    // A preset: recorded as the step's output without calling a model.
    const summary = await ok(agent, "record_step", {
      recordingId: rec,
      type: "llm",
      id: "summary",
      config: { prompt: "Summarize order {{ steps.code.output.data.id }}" },
      preset: "Order ord_42 from Oslo",
    });
    expect(summary).toMatchObject({ ok: true, output: { data: "Order ord_42 from Oslo" } });

    const sum = await ok(agent, "record_step", {
      recordingId: rec,
      type: "tool",
      id: "sum",
      config: { server: "fake", tool: "add", arguments: { a: "@code.double", b: 2 } },
    });
    expect(sum).toMatchObject({ ok: true, output: { data: 200 } });
    expect(mcp.calls.at(-1)).toEqual({ name: "add", arguments: { a: 198, b: 2 } });
    // The agent copied an id instead of referencing it: offered as a reference when saving.
    await ok(agent, "record_step", {
      recordingId: rec,
      type: "tool",
      id: "echo",
      config: { server: "fake", tool: "echo", arguments: { orderId: "ord_42" } },
    });

    const finished = await ok(agent, "finish_recording", {
      recordingId: rec,
      output: { total: "{{ steps.sum.output.data }}" },
    });
    expect(finished).toMatchObject({ status: "completed", output: { total: 200 } });

    const saved = await ok(agent, "save_as_workflow", { recordingId: rec });
    expect(saved).toMatchObject({ ok: true, issues: [], workflowId: started.workflowId });
    expect(
      saved.definition.steps.map((s: { id: string; type: string }) => `${s.id}:${s.type}`),
    ).toEqual(["fetch:http", "code:code", "summary:llm", "sum:tool", "echo:tool"]);
    expect(saved.definition.steps[1].config.input).toBe("{{ steps.fetch.output.data.body.order }}");
    expect(saved.definition.steps[3].config.arguments.a).toBe(
      "{{ steps.code.output.data.double }}",
    );
    expect(saved.definition.output).toEqual({ total: "{{ steps.sum.output.data }}" });
    expect(saved.suggestions).toEqual([
      {
        stepId: "echo",
        path: ["arguments", "orderId"],
        value: "ord_42",
        reference: "{{ steps.code.output.data.id }}",
      },
    ]);
    const wf = await getWorkflow({
      ctx: e.ws.ctx("viewer"),
      input: { workflowId: saved.workflowId },
    });
    expect(wf.issues).toEqual([]);
    expect(wf.draft).toMatchObject({ inputs: { city: { type: "string", default: "Oslo" } } });
    // The editor offers the same suggestions for the person to confirm (viewer may read them).
    expect(
      await listReferenceSuggestions({
        ctx: e.ws.ctx("viewer"),
        input: { workflowId: saved.workflowId },
      }),
    ).toEqual({ recordingId: rec, suggestions: saved.suggestions });
    expect(
      liveSuggestions(wf.draft as Record<string, unknown>, saved.suggestions).map((x) => x.stepId),
    ).toEqual(["echo"]);

    // The recorded run is a run like any other.
    const run = await ok(agent, "get_run", { runId: rec });
    expect(run).toMatchObject({ status: "ok", output: { total: 200 } });
    const steps = await e.steps(rec);
    expect(steps.map((s) => `${s.path}:${s.status}`)).toEqual([
      "fetch:completed",
      "code:completed",
      "summary:completed",
      "sum:completed",
      "echo:completed",
    ]);
    const detail = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId: rec } });
    expect(detail.definition).toEqual(saved.definition);
    await expect(
      rerunRun({ ctx: e.ws.ctx("editor"), input: { runId: rec, version: "pinned" } }),
    ).rejects.toThrow(/placeholder/);
    const listed = await listRuns({ ctx: e.ws.ctx("viewer"), input: { trigger: "recording" } });
    expect(listed.items.map((r: { id: string }) => r.id)).toContain(rec);
  });

  it("keeps failed calls out of the recording, and refuses bad references, ended recordings, roles and other workspaces", async () => {
    const agent = await connect(tokens.editor);
    const { recordingId } = await ok(agent, "start_recording", { name: "Refusals" });

    const failed = await ok(agent, "record_step", {
      recordingId,
      type: "http",
      id: "get",
      config: { url: `${api.origin}/fail` },
    });
    expect(failed).toMatchObject({ ok: false, attempt: 1, error: { class: "user" } });
    // The same id again: a second attempt, and this one is kept.
    const retried = await ok(agent, "record_step", {
      recordingId,
      type: "http",
      id: "get",
      config: { url: `${api.origin}/ok` },
    });
    expect(retried).toMatchObject({ ok: true, attempt: 2 });

    expect(
      errorText(
        await call(agent, "record_step", {
          recordingId,
          type: "code",
          config: { source: "export default (x) => x", input: "{{ steps.nope.output.data }}" },
        }),
      ),
    ).toMatch(/nope/);
    expect(
      errorText(
        await call(agent, "record_step", {
          recordingId,
          type: "http",
          id: "get",
          config: { url: `${api.origin}/ok` },
        }),
      ),
    ).toMatch(/already recorded/);
    expect(
      errorText(await call(agent, "record_step", { recordingId, type: "script", config: {} })),
    ).toMatch(/type/);

    await ok(agent, "finish_recording", { recordingId });
    expect(
      errorText(
        await call(agent, "record_step", {
          recordingId,
          type: "http",
          config: { url: `${api.origin}/ok` },
        }),
      ),
    ).toMatch(/completed; start a new recording/);
    const saved = await ok(agent, "save_as_workflow", { recordingId, name: "Renamed" });
    expect(saved.definition.steps.map((s: { id: string }) => s.id)).toEqual(["get"]);
    expect(saved.definition.name).toBe("Renamed");

    // Cancelling a recording ends it at once: there is no durable execution to wait for.
    const other = await ok(agent, "start_recording", { name: "Cancelled" });
    expect(await ok(agent, "cancel_run", { runId: other.recordingId })).toMatchObject({
      status: "cancelled",
    });
    expect(
      errorText(
        await call(agent, "record_step", {
          recordingId: other.recordingId,
          type: "http",
          config: { url: `${api.origin}/ok` },
        }),
      ),
    ).toMatch(/cancelled; start a new recording/);

    // Workspace policies apply to recorded calls as to published workflows.
    const admin = e.ws.ctx("admin");
    const policies = { scriptStepsEnabled: false, allowedPrivateHosts: ["127.0.0.1"] };
    await updateWorkspacePolicies({
      ctx: admin,
      input: { ...policies, forbiddenStepTypes: ["http"] },
    });
    try {
      const third = await ok(agent, "start_recording", { name: "Policed" });
      expect(
        errorText(
          await call(agent, "record_step", {
            recordingId: third.recordingId,
            type: "http",
            config: { url: `${api.origin}/policed` },
          }),
        ),
      ).toMatch(/"http" steps are forbidden by the workspace policy/);
      expect(api.requests.some((r) => r.url === "/policed")).toBe(false);
    } finally {
      await updateWorkspacePolicies({ ctx: admin, input: { ...policies, forbiddenStepTypes: [] } });
    }

    // The run's step budget (here the plan's steps-per-run) bounds a recording too.
    await updateWorkspaceQuota({
      ctx: admin,
      input: { plan: null, overrides: { stepsPerRun: 2 } },
    });
    try {
      const budget = await ok(agent, "start_recording", { name: "Budget" });
      const preset = (id: string) => ({
        recordingId: budget.recordingId,
        type: "code",
        id,
        config: { source: "export default () => 1" },
        preset: 1,
      });
      await ok(agent, "record_step", preset("one"));
      await ok(agent, "record_step", preset("two"));
      expect(errorText(await call(agent, "record_step", preset("three")))).toMatch(
        /reached its limit of 2 step attempts/,
      );
    } finally {
      await updateWorkspaceQuota({ ctx: admin, input: { plan: null, overrides: {} } });
    }

    const viewer = await connect(tokens.viewer);
    expect(errorText(await call(viewer, "start_recording", { name: "No" }))).toMatch(/editor role/);
    expect(errorText(await call(viewer, "save_as_workflow", { recordingId }))).toMatch(
      /editor role/,
    );
    const foreign = await connect(tokens.foreign);
    expect(errorText(await call(foreign, "finish_recording", { recordingId }))).toMatch(
      /not_found/,
    );
    expect(errorText(await call(foreign, "save_as_workflow", { recordingId }))).toMatch(
      /not_found/,
    );
  });

  it("starts only with a free run slot: a recording never waits in the queue", async () => {
    const agent = await connect(tokens.editor);
    const admin = e.ws.ctx("admin");
    const { recordingId } = await ok(agent, "start_recording", { name: "Holds a slot" });
    await updateAdmissionLimits({
      ctx: admin,
      input: { maxActiveRunsPerUser: 1, maxActiveRunsPerWorkspace: null },
    });
    try {
      expect(errorText(await call(agent, "start_recording", { name: "No slot" }))).toMatch(
        /You already have \d+ active runs \(the limit is 1 per person\)/,
      );
      // Refused as a whole: no workflow was left behind.
      const names = (await listWorkflows({ ctx: admin, input: { search: "No slot" } })).items;
      expect(names).toEqual([]);
    } finally {
      await updateAdmissionLimits({
        ctx: admin,
        input: { maxActiveRunsPerUser: null, maxActiveRunsPerWorkspace: null },
      });
    }
    await ok(agent, "finish_recording", { recordingId });
  });

  it("times an abandoned recording out at the run timeout, freeing its slot", async () => {
    const agent = await connect(tokens.editor);
    const { recordingId } = await ok(agent, "start_recording", { name: "Abandoned" });
    e.h.clock.advance(3_600_000 + 60_000);
    await reapRunsBody();
    expect(await ok(agent, "get_run", { runId: recordingId })).toMatchObject({
      status: "failed",
      error: { code: "timed_out" },
    });
  });
});
