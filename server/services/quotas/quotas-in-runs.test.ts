/**
 * Workspace quotas inside the engine (real executor, SDK and database): the plan's "steps per
 * run" stops a run at step dispatch with a message naming the limit, and llm steps call the model
 * under the LLM token budget (max_tokens capped per step, tokens counted per workflow and month).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getQuotaUsage } from "@/server/services/quotas/get-quota-usage";
import { updateWorkspaceQuota } from "@/server/services/quotas/update-workspace-quota";
import { updateLlmIntegration } from "@/server/services/settings/update-llm-integration";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { startFakeOpenAi, type FakeOpenAi } from "@/server/testing/fake-openai";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
let openai: FakeOpenAi;
beforeAll(async () => {
  e = await startRunHarness("quotas-engine");
  openai = await startFakeOpenAi(() => ({ content: "ok", usage: [20, 10] }));
});
afterAll(async () => {
  await openai?.close();
  await e?.close();
});

describe("quotas in the engine", () => {
  it("steps per run: the plan's lower limit stops the run before the next step, naming the quota", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "StepsQuota");
    await updateWorkspaceQuota({
      ctx: fx.ctx("admin"),
      input: { plan: null, overrides: { stepsPerRun: 2 } },
    });
    // maxSteps 4 (the definition's own limit): under it, the quota of 2 is what stops the run.
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Four steps",
        constraints: { maxSteps: 4 },
        steps: [
          { id: "a", type: "transform", config: { value: 1 } },
          { id: "b", type: "transform", config: { value: 2 } },
          { id: "c", type: "transform", config: { value: 3 } },
        ],
      },
      fx,
    );
    const run = await e.waitFor(await e.start(wf, {}, fx), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({
      code: "quota_exceeded",
      message:
        'Quota "Steps per run" reached: the limit is 2 step attempts; the run stopped before step "c"; ask a workspace admin to change the plan or limit in Settings → Quotas',
    });
    const ran = (await e.steps(run.id)).filter((s) => s.status === "completed").map((s) => s.path);
    expect(ran).toEqual(["a", "b"]);

    // Without the quota (the server default, enterprise) the same workflow completes.
    const open = await e.workflow({
      schemaVersion: 1,
      name: "Four steps, unmetered",
      constraints: { maxSteps: 4 },
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
        { id: "c", type: "transform", config: { value: 3 } },
      ],
    });
    expect((await e.waitFor(await e.start(open), ["completed", "failed"])).status).toBe(
      "completed",
    );
  });

  it("llm steps: max_tokens is capped at the per-step limit and the tokens count toward the workflow's month", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "LlmQuota");
    const admin = fx.ctx("admin");
    await updateWorkspacePolicies({
      ctx: admin,
      input: {
        scriptStepsEnabled: false,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    await updateLlmIntegration({
      ctx: admin,
      input: { llm: { baseUrl: openai.baseUrl, model: "fake-model" } },
    });
    await updateWorkspaceQuota({
      ctx: admin,
      input: { plan: "pro", overrides: { llmTokensPerStep: 64 } },
    });
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Ask",
        steps: [{ id: "ask", type: "llm", config: { prompt: "Hi", json: false } }],
      },
      fx,
    );
    const sent = openai.bodies.length;
    const run = await e.waitFor(await e.start(wf, {}, fx), ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(openai.bodies[sent]?.max_tokens).toBe(64);
    const usage = await getQuotaUsage({ ctx: fx.ctx("viewer") });
    expect(usage.llmByWorkflow).toEqual([{ workflowId: wf, name: "Ask", used: 30 }]);
    expect(usage.meters.find((m) => m.key === "llmTokensPerWorkflowPerMonth")).toMatchObject({
      used: 30,
      limit: 5_000_000,
    });
  });
});
