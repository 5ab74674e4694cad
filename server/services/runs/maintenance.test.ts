import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvals, runEvents, runSteps, runs, webhookInbox } from "@/db/schema";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { pgError } from "@/db/errors";
import { retentionBody } from "@/server/services/retention/retention-body";
import { reapRunsBody } from "@/server/services/runs/reap-runs-body";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("maintenance");
});
afterAll(async () => {
  await e?.close();
});

describe("maintenance", () => {
  it("retention deletes old finished runs with their steps and events (append-only rows go only by cascade)", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Old",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const oldRun = await e.waitFor(await e.start(wf), ["completed"]);
    const freshRun = await e.waitFor(await e.start(wf), ["completed"]);
    // Run events are append-only: not even the retention job may delete them one by one.
    const direct = await e.db.db
      .delete(runEvents)
      .where(eq(runEvents.runId, oldRun.id))
      .catch((x) => x);
    expect(pgError(direct)?.message).toMatch(/append-only/);
    await e.db.db
      .update(runs)
      .set({ finishedAt: new Date(Date.now() - 200 * 86_400_000) })
      .where(eq(runs.id, oldRun.id));
    const res = await retentionBody();
    expect(res.runs).toBeGreaterThanOrEqual(1);
    expect(await e.db.db.select().from(runs).where(eq(runs.id, oldRun.id))).toHaveLength(0);
    expect(await e.db.db.select().from(runSteps).where(eq(runSteps.runId, oldRun.id))).toHaveLength(
      0,
    );
    expect(
      await e.db.db.select().from(runEvents).where(eq(runEvents.runId, oldRun.id)),
    ).toHaveLength(0);
    expect(await e.db.db.select().from(runs).where(eq(runs.id, freshRun.id))).toHaveLength(1);
  });

  it("retention drops old admitted/failed webhook inbox rows, never pending or recent ones", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Hooked",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const { trigger } = await createTrigger({
      ctx: e.ws.ctx("editor"),
      input: { kind: "webhook", workflowId: wf, name: "Hook", config: {} },
    });
    const old = new Date(Date.now() - 200 * 86_400_000);
    const row = (id: string, status: "accepted" | "admitted" | "failed", createdAt: Date) => ({
      id,
      workspaceId: e.ws.workspaceId,
      triggerId: trigger.id,
      deliveryKey: id,
      runId: `run_${id}`,
      status,
      request: {},
      createdAt,
    });
    await e.db.db
      .insert(webhookInbox)
      .values([
        row("old-admitted", "admitted", old),
        row("old-failed", "failed", old),
        row("old-pending", "accepted", old),
        row("new-admitted", "admitted", new Date()),
      ]);
    await retentionBody();
    const left = await e.db.db
      .select({ id: webhookInbox.id })
      .from(webhookInbox)
      .where(eq(webhookInbox.triggerId, trigger.id));
    expect(left.map((r) => r.id).sort()).toEqual(["new-admitted", "old-pending"]);
  });

  it("the reaper times out runs past their deadline and stops their execution", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Slow gate",
      steps: [{ id: "ask", type: "approval", config: { prompt: "?" } }],
    });
    const runId = await e.start(wf);
    await e.waitFor(runId, ["waiting"]);
    await e.db.db
      .update(runs)
      .set({ deadlineAt: new Date(Date.now() - 1000) })
      .where(eq(runs.id, runId));
    const r = await reapRunsBody();
    expect(r.timedOut).toBeGreaterThanOrEqual(1);
    const run = await e.waitFor(runId, ["timed_out"]);
    expect(run.error).toMatchObject({ code: "timed_out" });
    const [gate] = await e.db.db.select().from(approvals).where(eq(approvals.runId, runId));
    expect(gate!.status).toBe("cancelled");
  });
});

describe("stranded runs", () => {
  it("the reaper re-sends the start of an admitted run whose execution never began, and only one execution drives it", async () => {
    const { outbox } = await import("@/db/schema");
    const { startRun } = await import("@/server/services/runs/start-run");
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Stranded",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    // Lose the start message before the relay sends it: through the outbox (as with a real
    // Inngest), stop the relay, start, delete the message.
    const { setInProcessExecutor } = await import("@/server/services/outbox/in-process-executor");
    setInProcessExecutor(undefined);
    await e.relay.stop();
    const { runId } = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf } });
    setInProcessExecutor(e.h.executor);
    await e.db.db.delete(outbox).where(eq(outbox.id, `start_${runId}`));
    await e.db.db
      .update(runs)
      .set({ updatedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(runs.id, runId));
    const { createOutboxDeliverer } = await import("@/server/services/outbox/deliver");
    const { startOutboxRelay } = await import("@/server/services/outbox/relay-runner");
    const { createLogger } = await import("@/lib/log");
    e.relay = startOutboxRelay({
      db: e.db.db,
      deliver: createOutboxDeliverer((events) => e.h.executor.send(events)),
      log: createLogger({}),
      pollMs: 50,
    });
    const r = await reapRunsBody();
    expect(r.restarted).toBe(1);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.inngestRunId).toBeTruthy();
    // A duplicate start (another execution) finds the run claimed and does nothing.
    await e.h.executor.send([
      {
        id: `dup_${runId}`,
        name: "sluice/run.start",
        data: { runId, workspaceId: e.ws.workspaceId },
      },
    ]);
    const steps = await e.steps(runId);
    expect(steps.filter((s) => s.path === "a")).toHaveLength(1);
  });
});
