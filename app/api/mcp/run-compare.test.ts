/**
 * MCP tools diff_runs, preview_rerun and get_proposal_impact through the SDK client against the
 * route handler, a real database and the real engine: a viewer token may use all three, another
 * workspace's token gets "not found".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { call, errorText, mcpClients, ok } from "./test-client";

let e: RunHarness;
let viewer: string;
let foreign: string;
const clients = mcpClients();
beforeAll(async () => {
  e = await startRunHarness("mcp-run-compare");
  const other = await createWorkspaceFixture(e.db.db, "Other");
  viewer = (await createApiToken({ ctx: e.ws.ctx("admin"), input: { name: "v", role: "viewer" } }))
    .token;
  foreign = (await createApiToken({ ctx: other.ctx("owner"), input: { name: "f", role: "owner" } }))
    .token;
});
afterEach(async () => {
  await clients.closeAll();
});
afterAll(async () => {
  await e?.close();
});

const def = (word: string) => ({
  schemaVersion: 1,
  name: "MCP compared",
  constraints: { allowSelfModification: true },
  inputs: { n: { type: "number", default: 1 } },
  steps: [
    { id: "calc", type: "transform", config: { value: { word, n: "{{ input.n }}" } } },
    { id: "tell", type: "emit_event", config: { event: "mcp.compared", data: {} } },
  ],
});

describe("MCP run compare tools", () => {
  it("diff_runs compares with the previous run; preview_rerun lists side effects with keys", async () => {
    const wf = await e.workflow(def("w"));
    const a = (await e.waitFor(await e.start(wf, { n: 1 }), ["completed"])).id;
    const b = (await e.waitFor(await e.start(wf, { n: 2 }), ["completed"])).id;
    const client = await clients.connect(viewer);
    const d = await ok(client, "diff_runs", { runId: b });
    expect(d.a.id).toBe(a);
    const calc = d.steps.find((s: { path: string }) => s.path === "calc");
    expect(calc.output.changes).toMatchObject([{ where: "$.n", before: 1, after: 2 }]);
    const p = await ok(client, "preview_rerun", { runId: a, fromStepId: "tell" });
    expect(p).toMatchObject({
      reused: ["calc"],
      rerun: [{ stepId: "tell", sideEffect: true, idempotency: { source: "none" } }],
    });

    const other = await clients.connect(foreign);
    expect(errorText(await call(other, "diff_runs", { runId: b, withRunId: a }))).toMatch(
      /not found/i,
    );
  });

  it("get_proposal_impact lists the runs in flight on the base version", async () => {
    const wf = await e.workflow({
      ...def("gate"),
      steps: [{ id: "ask", type: "approval", config: { prompt: "ok?" } }],
    });
    const waiting = await e.start(wf);
    await e.pendingApproval(waiting);
    const proposal = await createProposal({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, baseHash: "current", summary: "new", definition: def("new") },
    });
    const client = await clients.connect(viewer);
    const impact = await ok(client, "get_proposal_impact", { proposalId: proposal.id });
    expect(impact.inFlight).toMatchObject({ total: 1, runs: [{ id: waiting, status: "waiting" }] });
    const other = await clients.connect(foreign);
    expect(
      errorText(await call(other, "get_proposal_impact", { proposalId: proposal.id })),
    ).toMatch(/not found/i);
  });
});
