/**
 * The propose_change step through the real engine (embedded executor, real SDK, outbox relay):
 * the run opens a pending proposal linked to its run and step, the dry-run function replays the
 * finished run, and after review and apply the next run uses the new version.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { proposals, runSteps } from "@/db/schema";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { decideApproval } from "../approvals/decide-approval";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { applyProposal } from "./apply-proposal";
import { getProposal } from "./get-proposal";
import { retryDryRun } from "./retry-dry-run";
import { reviewProposal } from "./review-proposal";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("proposestep");
});
afterAll(async () => {
  await e?.close();
});

it("a run proposes a change; once applied, a later run uses the new version", async () => {
  const workflowId = await e.workflow({
    schemaVersion: 1,
    name: "Self improving",
    constraints: { allowSelfModification: true },
    steps: [
      { id: "shape", type: "transform", config: { value: 1 } },
      {
        id: "improve",
        type: "propose_change",
        config: {
          summary: "Use 2 and stop proposing",
          rationale: "found by run {{ run.id }}",
          patch: [
            { op: "replace", path: "/steps/0/config/value", value: 2 },
            { op: "remove", path: "/steps/1" },
            // The stored definition has the implicit sequential edge spelled out.
            { op: "replace", path: "/edges", value: [] },
          ],
        },
      },
    ],
  });
  const runId = await e.start(workflowId);
  const run = await e.waitFor(runId, ["completed", "failed"]);
  expect(run.status, JSON.stringify(run.error)).toBe("completed");
  const improve = (await e.steps(runId)).find((s) => s.stepId === "improve")!;
  const proposalId = (improve.output as { data: { proposalId: string } }).data.proposalId;
  const [row] = await e.db.db.select().from(proposals).where(eq(proposals.id, proposalId));
  expect(row).toMatchObject({
    status: "pending",
    authorType: "run",
    authorId: runId,
    runId,
    stepId: "improve",
    // The run acts for the editor who started it.
    authorUserId: e.ws.members.editor,
  });
  expect(row!.rationale).toBe(`found by run ${runId}`);
  // The step named the version its run pinned as the base.
  expect(row).toMatchObject({ baseHash: run.hash, baseRequested: run.hash });

  // The dry run requested with the proposal (through the outbox) may start before the proposing
  // run has finished; a retry once it has replays that run.
  await e.h.until(async () => {
    const p = await getProposal({ ctx: e.ws.ctx("viewer"), input: { proposalId } });
    return p.dryRun.status === "done" || p.dryRun.status === "failed";
  }, "the first dry run to finish");
  await retryDryRun({ ctx: e.ws.ctx("editor"), input: { proposalId } });
  const dry = await e.h.until(async () => {
    const p = await getProposal({ ctx: e.ws.ctx("viewer"), input: { proposalId } });
    return p.dryRun.status === "done" || p.dryRun.status === "failed" ? p.dryRun : undefined;
  }, "the dry run to finish");
  expect(dry).toMatchObject({ status: "done", total: 1, done: 1 });
  expect(dry.report?.runs.map((r) => r.runId)).toEqual([runId]);

  // The editor behind the run cannot approve it; an admin can, and applies it.
  const p = await getProposal({ ctx: e.ws.ctx("editor"), input: { proposalId } });
  await expect(
    reviewProposal({
      ctx: e.ws.ctx("editor"),
      input: { proposalId, decision: "approve", shownHash: p.reviewedContentHash },
    }),
  ).rejects.toMatchObject({ reason: "SELF_REVIEW" });
  await reviewProposal({
    ctx: e.ws.ctx("admin"),
    input: { proposalId, decision: "approve", shownHash: p.reviewedContentHash },
  });
  const applied = await applyProposal({ ctx: e.ws.ctx("admin"), input: { proposalId } });

  const next = await e.start(workflowId);
  const done = await e.waitFor(next, ["completed", "failed"]);
  expect(done).toMatchObject({ status: "completed", version: applied.version });
  const steps = await e.db.db.select().from(runSteps).where(eq(runSteps.runId, next));
  expect(steps.map((s) => s.stepId)).toEqual(["shape"]);
  expect((steps[0]!.output as { data: unknown }).data).toBe(2);
});

/*
 *   start ─▶ hold (approval) ─approved─▶ improve (propose_change)
 *   the run pins v1; v2 is published while it waits at `hold`
 */
it("sends its run's pinned hash: a workflow published since the run started is STALE_BASE, not a silent rebase", async () => {
  const definition = {
    schemaVersion: 1,
    name: "Pinned proposer",
    constraints: { allowSelfModification: true },
    steps: [
      { id: "hold", type: "approval", config: { prompt: "Propose?" } },
      {
        id: "improve",
        type: "propose_change",
        config: {
          summary: "Reword the prompt",
          patch: [{ op: "replace", path: "/steps/0/config/prompt", value: "Propose now?" }],
        },
      },
    ],
    edges: [{ from: "hold", port: "approved", to: "improve" }],
  };
  const workflowId = await e.workflow(definition);
  const runId = await e.start(workflowId);
  const gate = await e.pendingApproval(runId);
  await saveDraft({
    ctx: e.ws.ctx("editor"),
    input: { workflowId, definition: { ...definition, description: "moved on" } },
  });
  const v2 = await publishWorkflow({ ctx: e.ws.ctx("editor"), input: { workflowId } });
  expect(v2.status).toBe("created");
  await decideApproval({
    ctx: e.ws.ctx("approver"),
    input: { approvalId: gate.id, approve: true },
    via: "ui",
  });
  const run = await e.waitFor(runId, ["completed", "failed"]);
  expect(run.status).toBe("failed");
  expect(run.hash).not.toBe(v2.hash);
  const improve = (await e.steps(runId)).find((s) => s.stepId === "improve")!;
  expect(improve.status).toBe("failed");
  expect(improve.error).toMatchObject({
    message: expect.stringMatching(/^The change was written against sha256:/),
    details: { code: "STALE_BASE" },
  });
  expect(await e.db.db.select().from(proposals).where(eq(proposals.runId, runId))).toHaveLength(0);
});
