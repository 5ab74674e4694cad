import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STARTERS } from "@/lib/starters";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

/**
 * Every built-in template runs green out of the box (issue 16 item 8): created as a new user
 * would create it (published as 1.0.0), started with no input (the defaults the run form shows),
 * through the real engine, with no outside service. A gate is decided both ways.
 */
let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("starters");
});
afterAll(async () => {
  await e?.close();
});

const TERMINAL = ["completed", "failed", "cancelled", "timed_out"];

async function fromTemplate(template: string): Promise<string> {
  const wf = await createWorkflow({
    ctx: e.ws.ctx("editor"),
    input: { name: `Starter ${template}`, template },
  });
  return wf.id;
}

/** Runs to the end, moving the executor clock past delays (the batch template cools down 5 s). */
const finish = (runId: string) => e.waitFor(runId, TERMINAL, { advanceMs: 1_000 });

describe("built-in templates run green", () => {
  it("covers every template in this file", () => {
    expect(STARTERS.map((s) => s.id).sort()).toEqual(
      ["batch-loop", "blank", "release-train", "triage-branch"].sort(),
    );
  });

  it("blank returns its (empty) input", async () => {
    const run = await finish(await e.start(await fromTemplate("blank")));
    expect(run).toMatchObject({ status: "completed", error: null, output: {} });
  });

  it("release-train, approved: announces the deploy as an event and completes shipped", async () => {
    const wf = await fromTemplate("release-train");
    const runId = await e.start(wf);
    const gate = await e.pendingApproval(runId);
    expect(gate.prompt).toBe("Ship 1.0.0 to staging?");
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: gate.id, approve: true, reason: "go" },
      via: "ui",
    });
    const run = await finish(runId);
    expect(run).toMatchObject({
      status: "completed",
      error: null,
      output: { shipped: true, version: "1.0.0", environment: "staging" },
    });
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.deploy).toMatchObject({
      status: "completed",
      output: { data: { event: "release.approved", data: { version: "1.0.0" } } },
    });
    expect(steps.declined!.status).toBe("skipped");
  });

  it("release-train, rejected: completes with shipped: false and the approver's reason", async () => {
    // A rejection is an outcome the template handles on its `rejected` port, so the run
    // completes and says why; nothing is deployed and nothing is `failed`.
    const wf = await fromTemplate("release-train");
    const runId = await e.start(wf, { version: "2.0.0", environment: "production" });
    const gate = await e.pendingApproval(runId);
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: gate.id, approve: false, reason: "freeze week" },
      via: "ui",
    });
    const run = await finish(runId);
    expect(run).toMatchObject({
      status: "completed",
      error: null,
      output: { shipped: false, version: "2.0.0", reason: "freeze week" },
    });
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.deploy!.status).toBe("skipped");
    expect(steps.shipped!.status).toBe("skipped");
  });

  it("triage-branch takes the urgent branch by default and the queue branch for low severity", async () => {
    const wf = await fromTemplate("triage-branch");
    const urgent = await finish(await e.start(wf));
    expect(urgent).toMatchObject({
      status: "completed",
      output: { title: "Checkout is slow", severity: 3 },
    });
    const low = await e.start(wf, { severity: 1, title: "Typo" });
    expect(await finish(low)).toMatchObject({
      status: "completed",
      output: { title: "Typo", severity: 1 },
    });
    const steps = Object.fromEntries((await e.steps(low)).map((s) => [s.path, s.status]));
    expect(steps).toMatchObject({ queue: "completed", page: "skipped", summary: "completed" });
  });

  it("batch-loop processes its sample items and returns them", async () => {
    const run = await finish(await e.start(await fromTemplate("batch-loop")));
    expect(run).toMatchObject({
      status: "completed",
      output: [
        { index: 0, item: "apples" },
        { index: 1, item: "pears" },
        { index: 2, item: "plums" },
      ],
    });
  });
});
