/**
 * Test runs from the editor (docs/runs.md "Testing while building"): "Test this step" / "Test up
 * to here" run the draft cut to the step and its ancestors, reuse or confirm side effects, and
 * leave no trace outside the run — no quota, no system events, no emitted events.
 *
 *   seed (transform) ──▶ call (http → counting stub) ──▶ shape (transform) ──▶ after (transform)
 *                                                   └─▶ other (transform)
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposals, quotaUsage, runs, triggerDeliveries, workspaces } from "@/db/schema";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { ForbiddenError, NotFoundError, ValidationError } from "../../errors";
import { updateWorkspacePolicies } from "../settings/update-workspace-policies";
import { createTrigger } from "../triggers/create-trigger";
import { listRuns } from "./list-runs";
import { previewTestStep } from "./preview-test-step";
import { testStep } from "./test-step";

let e: RunHarness;
let stub: LocalServer;
let workflowId = "";

const definition = () => ({
  schemaVersion: 1,
  name: "Tested",
  inputs: { who: { type: "string", default: "nobody" } },
  steps: [
    { id: "seed", type: "transform", config: { value: "hi {{ input.who }}" } },
    { id: "call", type: "http", config: { method: "POST", url: `${stub.origin}/hit` } },
    { id: "shape", type: "transform", config: { value: "{{ steps.call.output.data.body.n }}" } },
    { id: "after", type: "transform", config: { value: "later" } },
    { id: "other", type: "transform", config: { value: "elsewhere" } },
  ],
  edges: [
    { from: "seed", to: "call" },
    { from: "call", to: "shape" },
    { from: "shape", to: "after" },
    { from: "call", to: "other" },
  ],
});

const editor = () => e.ws.ctx("editor");
const stepIds = async (runId: string) =>
  [...new Set((await e.steps(runId)).map((s) => s.stepId))].sort();
const runsUsed = async () =>
  (
    await e.db.db
      .select({ used: quotaUsage.used })
      .from(quotaUsage)
      .where(and(eq(quotaUsage.workspaceId, e.ws.workspaceId), eq(quotaUsage.metric, "runs")))
  ).reduce((n, r) => n + Number(r.used), 0);

beforeAll(async () => {
  e = await startRunHarness("test-step");
  let n = 0;
  stub = await startHttpServer((_req, res) => sendJson(res, 200, { n: ++n }));
  await e.db.db
    .update(workspaces)
    .set({ settings: { maxActiveRunsPerUser: 100, maxActiveRunsPerWorkspace: 100 } })
    .where(eq(workspaces.id, e.ws.workspaceId));
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  workflowId = await e.workflow(definition());
});
afterAll(async () => {
  await stub?.close();
  await e?.close();
});

describe("testStep", () => {
  it("asks before a side-effecting step with no recorded output", async () => {
    const preview = await previewTestStep({
      ctx: editor(),
      input: { workflowId, stepId: "shape", mode: "up_to" },
    });
    expect(preview.needsConfirmation).toEqual(["call"]);
    expect(preview.lastRun).toBeNull();
    await expect(
      testStep({ ctx: editor(), input: { workflowId, stepId: "shape", mode: "up_to" } }),
    ).rejects.toThrow(/"call" \(http\) has side effects/);
    expect(stub.requests).toHaveLength(0);
  });

  it("up to here executes only the ancestors; a confirmed side effect runs exactly once", async () => {
    const used = await runsUsed();
    const r = await testStep({
      ctx: editor(),
      input: {
        workflowId,
        stepId: "shape",
        mode: "up_to",
        input: { who: "ann" },
        sideEffects: { call: "execute" },
      },
    });
    const run = await e.waitFor(r.runId, ["completed", "failed"]);
    expect(run).toMatchObject({ status: "completed", isTest: true, version: "draft", workflowId });
    expect(await stepIds(r.runId)).toEqual(["call", "seed", "shape"]);
    expect(stub.requests).toHaveLength(1);
    const shape = (await e.steps(r.runId)).find((s) => s.stepId === "shape");
    expect(shape?.output).toMatchObject({ data: 1 });
    // No quota consumed, and hidden from the run lists unless asked for.
    expect(await runsUsed()).toBe(used);
    const normal = await listRuns({ ctx: editor(), input: { workflowId } });
    expect(normal.items.map((i) => i.id)).not.toContain(r.runId);
    const tests = await listRuns({ ctx: editor(), input: { workflowId, tests: "only" } });
    expect(tests.items.map((i) => i.id)).toEqual([r.runId]);
  });

  it("use last output: the side-effecting step is not executed, its recorded output is reused", async () => {
    const real = await e.start(workflowId, { who: "bob" });
    await e.waitFor(real, ["completed"]);
    const hits = stub.requests.length;
    const preview = await previewTestStep({
      ctx: editor(),
      input: { workflowId, stepId: "shape", mode: "up_to" },
    });
    expect(preview.lastRun).toMatchObject({ id: real, input: { who: "bob" } });
    expect(preview.steps.find((s) => s.stepId === "call")).toMatchObject({
      sideEffect: true,
      hasLastOutput: true,
      action: "use_last",
    });
    const r = await testStep({
      ctx: editor(),
      input: { workflowId, stepId: "shape", mode: "up_to", sideEffects: { call: "use_last" } },
    });
    await e.waitFor(r.runId, ["completed"]);
    expect(stub.requests).toHaveLength(hits);
    expect(r.input).toEqual({ who: "bob" });
    const shape = (await e.steps(r.runId)).find((s) => s.stepId === "shape");
    expect(shape?.output).toMatchObject({ data: hits });
    // "Test this step" also reuses the pure ancestors' outputs: only the step itself executes.
    const one = await testStep({ ctx: editor(), input: { workflowId, stepId: "shape" } });
    await e.waitFor(one.runId, ["completed"]);
    expect(await stepIds(one.runId)).toEqual(["shape"]);
    expect(stub.requests).toHaveLength(hits);
  });

  it("tests the draft given, not the published version", async () => {
    const draft = definition();
    draft.steps[3] = {
      id: "after",
      type: "transform",
      config: { value: "changed {{ input.who }}" },
    };
    const r = await testStep({
      ctx: editor(),
      input: { workflowId, stepId: "after", definition: draft, input: { who: "cy" } },
    });
    await e.waitFor(r.runId, ["completed"]);
    const after = (await e.steps(r.runId)).find((s) => s.stepId === "after");
    expect(after?.output).toMatchObject({ data: "changed cy" });
  });

  it("fires no event trigger and delivers no emitted event", async () => {
    const listener = await e.workflow({
      schemaVersion: 1,
      name: "Listener",
      steps: [{ id: "got", type: "transform", config: { value: 1 } }],
    });
    const onDone = await createTrigger({
      ctx: editor(),
      input: {
        kind: "event",
        workflowId: listener,
        name: "on completed",
        config: {
          event: "run.completed",
          filter: { ref: "trigger.data.workflowId", eq: workflowId },
        },
      },
    });
    const onPing = await createTrigger({
      ctx: editor(),
      input: {
        kind: "event",
        workflowId: listener,
        name: "on ping",
        config: { event: "test.ping" },
      },
    });
    const draft = definition();
    draft.steps.push({ id: "ping", type: "emit_event", config: { event: "test.ping" } } as never);
    draft.edges.push({ from: "seed", to: "ping" });
    const r = await testStep({
      ctx: editor(),
      input: { workflowId, stepId: "ping", definition: draft, sideEffects: { ping: "execute" } },
    });
    await e.waitFor(r.runId, ["completed"]);
    // "seed" reuses its last real output ("Test this step"): only the emit_event step executes.
    expect(await stepIds(r.runId)).toEqual(["ping"]);
    // A real run of the same workflow does fire the run.completed trigger (the control).
    await e.waitFor(await e.start(workflowId), ["completed"]);
    const deliveries = async (id: string) =>
      e.db.db.select().from(triggerDeliveries).where(eq(triggerDeliveries.triggerId, id));
    await e.h.until(
      async () => (await deliveries(onDone.trigger.id)).length > 0 || undefined,
      "the real run's run.completed delivery",
    );
    await e.relay.drain();
    await e.relay.drain();
    expect(await deliveries(onDone.trigger.id)).toHaveLength(1);
    expect(await deliveries(onPing.trigger.id)).toHaveLength(0);
    const listenerRuns = await e.db.db.select().from(runs).where(eq(runs.workflowId, listener));
    expect(listenerRuns).toHaveLength(1);
  });

  it("a confirmed propose_change in a test run creates no proposal", async () => {
    const draft = definition();
    (draft as Record<string, unknown>).constraints = { allowSelfModification: true };
    draft.steps.push({
      id: "improve",
      type: "propose_change",
      config: { summary: "Say bye", patch: [{ op: "replace", path: "/name", value: "Bye" }] },
    } as never);
    draft.edges.push({ from: "seed", to: "improve" });
    const r = await testStep({
      ctx: editor(),
      input: {
        workflowId,
        stepId: "improve",
        definition: draft,
        sideEffects: { improve: "execute" },
      },
    });
    await e.waitFor(r.runId, ["completed"]);
    const improve = (await e.steps(r.runId)).find((s) => s.stepId === "improve");
    expect(improve?.output).toMatchObject({ data: { proposalId: null, status: "not_created" } });
    expect(
      await e.db.db.select().from(proposals).where(eq(proposals.workflowId, workflowId)),
    ).toEqual([]);
  });

  it("editors only: a viewer is forbidden, another workspace's workflow is not found", async () => {
    const input = { workflowId, stepId: "shape" };
    await expect(testStep({ ctx: e.ws.ctx("viewer"), input })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(previewTestStep({ ctx: e.ws.ctx("viewer"), input })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    const other = await createWorkspaceFixture(e.db.db, "Other");
    await expect(testStep({ ctx: other.ctx("editor"), input })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      testStep({ ctx: editor(), input: { workflowId, stepId: "nope" } }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
