import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_STATUS, IdempotencyKeyReusedError } from "@/server/errors";
import { approvals, runs, workspaces } from "@/db/schema";
import { PreconditionFailedError, ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { previewRerun } from "@/server/services/runs/preview-rerun";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { startRun } from "@/server/services/runs/start-run";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("lifecycle");
});
afterAll(async () => {
  await e?.close();
});

const gated = (name: string, extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name,
  ...extra,
  steps: [
    { id: "ask", type: "approval", config: { prompt: "go?", allowInitiator: true } },
    { id: "done", type: "transform", config: { value: "ok" } },
  ],
});

async function approveWhenPending(runId: string, fx = e.ws) {
  const a = await e.h.until(
    async () =>
      (await e.db.db.select().from(approvals).where(eq(approvals.runId, runId))).find(
        (x) => x.status === "pending",
      ),
    "pending approval",
  );
  await decideApproval({
    ctx: fx.ctx("owner"),
    input: { approvalId: a.id, approve: true },
    via: "ui",
  });
}

describe("admission, idempotency, cancel, rerun", () => {
  it("queues runs over the per-user limit and starts them FIFO when slots free; waiting runs keep their slot", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Limits");
    await e.db.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 2 } })
      .where(eq(workspaces.id, fx.workspaceId));
    const wf = await e.workflow(gated("Limited"), fx);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await e.start(wf, {}, fx));
    await e.waitFor(ids[0]!, ["waiting"]);
    await e.waitFor(ids[1]!, ["waiting"]);
    const statuses = async () =>
      Promise.all(
        ids.map(
          async (id) =>
            (await e.db.db.select({ s: runs.status }).from(runs).where(eq(runs.id, id)))[0]!.s,
        ),
      );
    expect((await statuses()).slice(2)).toEqual(["queued", "queued"]);
    await approveWhenPending(ids[0]!, fx);
    await e.waitFor(ids[0]!, ["completed"]);
    // The freed slot goes to the oldest queued run.
    await e.waitFor(ids[2]!, ["waiting"]);
    expect((await statuses())[3]).toBe("queued");
    for (const id of ids.slice(1)) {
      await approveWhenPending(id, fx);
      await e.waitFor(id, ["completed"]);
    }
  });

  it("returns the same run for a repeated idempotency key, also under concurrent requests", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Idem",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf, idempotencyKey: "req-123" } }),
      ),
    );
    expect(new Set(results.map((r) => r.runId)).size).toBe(1);
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    const rows = await e.db.db.select().from(runs).where(eq(runs.workflowId, wf));
    expect(rows).toHaveLength(1);
  });

  it("refuses an idempotency key sent again with a different input (422 naming the first run)", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Idem strict",
      inputs: { n: { type: "number", required: true }, tag: { type: "string", default: "x" } },
      steps: [{ id: "a", type: "transform", config: { value: "{{ input.n }}" } }],
    });
    const ctx = e.ws.ctx("editor");
    const first = await startRun({
      ctx,
      input: { workflowId: wf, idempotencyKey: "req-strict", input: { n: 1 } },
    });
    // The same request again (defaults spelled out, keys in another order) is the same run.
    const again = await startRun({
      ctx,
      input: { workflowId: wf, idempotencyKey: "req-strict", input: { tag: "x", n: 1 } },
    });
    expect(again).toMatchObject({ runId: first.runId, deduplicated: true });
    const reused = await startRun({
      ctx,
      input: { workflowId: wf, idempotencyKey: "req-strict", input: { n: 2 } },
    }).catch((err: unknown) => err);
    expect(reused).toBeInstanceOf(IdempotencyKeyReusedError);
    expect((reused as IdempotencyKeyReusedError).details).toEqual({ runId: first.runId });
    expect(HTTP_STATUS[(reused as IdempotencyKeyReusedError).code]).toBe(422);
    const rows = await e.db.db.select().from(runs).where(eq(runs.workflowId, wf));
    expect(rows).toHaveLength(1);
  });

  it("applies the skip and coalesce overflow policies", async () => {
    const skip = await e.workflow(
      gated("Skipper", { constraints: { maxConcurrentRuns: 1, overflow: "skip" } }),
    );
    const first = await e.start(skip);
    await e.waitFor(first, ["waiting"]);
    const second = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: skip } });
    expect(second.status).toBe("cancelled");
    const [row] = await e.db.db.select().from(runs).where(eq(runs.id, second.runId));
    expect(row!.error).toMatchObject({ code: "overflow_skipped" });

    const co = await e.workflow(
      gated("Coalescer", { constraints: { maxConcurrentRuns: 1, overflow: "coalesce" } }),
    );
    const a = await e.start(co);
    await e.waitFor(a, ["waiting"]);
    const b = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: co } });
    const c = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: co } });
    expect(b.status).toBe("queued");
    expect(c).toMatchObject({ runId: b.runId, deduplicated: true, reason: "coalesced" });
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId: first } });
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId: a } });
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId: b.runId } });
  });

  it("cancels a waiting run: the execution stops, the gate closes, the run ends cancelled", async () => {
    const wf = await e.workflow(gated("Cancel me"));
    const runId = await e.start(wf);
    await e.waitFor(runId, ["waiting"]);
    const res = await cancelRun({
      ctx: e.ws.ctx("editor"),
      input: { runId, reason: "changed my mind" },
    });
    expect(res.status).toBe("cancel_requested");
    const run = await e.waitFor(runId, ["cancelled"]);
    expect(run.status).toBe("cancelled");
    const [a] = await e.db.db.select().from(approvals).where(eq(approvals.runId, runId));
    expect(a!.status).toBe("cancelled");
    await expect(cancelRun({ ctx: e.ws.ctx("editor"), input: { runId } })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(startRun({ ctx: e.ws.ctx("viewer"), input: { workflowId: wf } })).rejects.toThrow(
      /editor role/,
    );
  });

  it("reruns a whole run and from a step, reusing earlier outputs and listing side effects that repeat", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Rerunnable",
      inputs: { n: { type: "number", default: 1 } },
      steps: [
        {
          id: "first",
          type: "code",
          config: {
            source: "export default function (i) { return { n: i.n, at: Math.random() } }",
            input: { n: "{{ input.n }}" },
          },
        },
        {
          id: "announce",
          type: "emit_event",
          config: { event: "rerun.test", data: { n: "{{ steps.first.output.data.n }}" } },
        },
        { id: "last", type: "transform", config: { value: "{{ steps.first.output.data.at }}" } },
      ],
      output: "{{ steps.last.output.data }}",
    });
    const original = await e.waitFor(await e.start(wf, { n: 5 }), ["completed"]);
    const preview = await previewRerun({
      ctx: e.ws.ctx("viewer"),
      input: { runId: original.id, fromStepId: "announce" },
    });
    expect(preview.rerun.map((s) => [s.stepId, s.sideEffect])).toEqual([
      ["announce", true],
      ["last", false],
    ]);
    expect(preview.reused).toEqual(["first"]);
    const fromStep = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId: original.id, fromStepId: "announce" },
    });
    const rerun = await e.waitFor(fromStep.runId, ["completed", "failed"]);
    // `first` was not executed again: the random value is the original one.
    expect(rerun.output).toBe(original.output);
    expect(rerun).toMatchObject({
      rerunOfRunId: original.id,
      rerunFromStepId: "announce",
      triggerType: "rerun",
    });
    const executed = (await e.steps(rerun.id)).filter((s) => s.attempt > 0).map((s) => s.path);
    expect(executed).toEqual(["announce", "last"]);

    const whole = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId: original.id, input: { n: 7 } },
    });
    const wholeRun = await e.waitFor(whole.runId, ["completed"]);
    expect(wholeRun.input).toEqual({ n: 7 });
    expect(wholeRun.output).not.toBe(original.output);
    await expect(
      rerunRun({ ctx: e.ws.ctx("editor"), input: { runId: original.id, fromStepId: "ghost" } }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it("refuses bad run input with the input named, and disabled or unpublished workflows", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Typed",
      inputs: { n: { type: "number", required: true } },
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const err = (await startRun({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, input: { n: "seven", extra: 1 } },
    }).catch((x) => x)) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues.map((i) => i.path?.join("."))).toEqual(
      expect.arrayContaining(["input.n", "input.extra"]),
    );
  });
});
