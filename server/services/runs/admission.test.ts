import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox, runEvents, runs, workspaces } from "@/db/schema";
import { executorEvents, executorJobs, executorExecutions } from "@/db/schema/executor";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { createRun } from "./create-run";
import { startRun } from "./start-run";

/*
 *   createRun ─ one transaction ─────────────────────────────────────────┐
 *     lock + snapshot (settings, active counts, anything queued?)        │ embedded executor:
 *     insert run (running if admitted) ─ run.queued {admitted}           │ event, run, job rows
 *     executor.sendInTransaction(start_<run>) ───────────────────────────┘ (no outbox row)
 *   commit ─▶ wake the executor's worker
 */

const oneStep = (name: string) => ({
  schemaVersion: 1,
  name,
  steps: [{ id: "a", type: "transform", config: { value: 1 } }],
});

/** The executor's rows for a run's start event (`start_<runId>` is the event's own id). */
async function executorRowsFor(e: RunHarness, runId: string) {
  const events = await e.db.db
    .select({ id: executorEvents.id })
    .from(executorEvents)
    .where(eq(executorEvents.externalId, `start_${runId}`));
  const ids = events.map((x) => x.id);
  const xruns = ids.length
    ? await e.db.db
        .select({ id: executorExecutions.id })
        .from(executorExecutions)
        .where(inArray(executorExecutions.eventId, ids))
    : [];
  const jobs = xruns.length
    ? await e.db.db
        .select({ id: executorJobs.id })
        .from(executorJobs)
        .where(
          inArray(
            executorJobs.runId,
            xruns.map((r) => r.id),
          ),
        )
    : [];
  const box = await e.db.db
    .select()
    .from(outbox)
    .where(eq(outbox.id, `start_${runId}`));
  return { events: ids.length, runs: xruns.length, jobs: jobs.length, outbox: box.length };
}

describe("embedded executor: a run starts in its admitting transaction", () => {
  let e: RunHarness;
  beforeAll(async () => {
    // No polling: a run only starts if the worker is woken after the admitting commit.
    e = await startRunHarness("admission", { executor: { pollIntervalMs: 3_600_000 } });
  });
  afterAll(async () => {
    await e?.close();
  });

  it("writes the executor's event, run and job with the run, no outbox row, and the run completes", async () => {
    const wf = await e.workflow(oneStep("Direct"));
    const started = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf } });
    expect(started.status).toBe("running");
    const keyed = await startRun({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, idempotencyKey: "direct-1" },
    });
    expect(keyed.status).toBe("running");
    expect(await executorRowsFor(e, keyed.runId)).toMatchObject({ events: 1, runs: 1, outbox: 0 });
    // Right after the commit, before anything else ran.
    const rows = await executorRowsFor(e, started.runId);
    expect(rows).toMatchObject({ events: 1, runs: 1, outbox: 0 });
    const run = await e.waitFor(started.runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    // One creation event says it was admitted at once; no separate run.admitted.
    const events = await e.db.db
      .select({ type: runEvents.type, data: runEvents.data })
      .from(runEvents)
      .where(eq(runEvents.runId, started.runId));
    expect(events.filter((x) => x.type === "run.queued")).toEqual([
      {
        type: "run.queued",
        data: { trigger: "manual", version: expect.any(String), admitted: true },
      },
    ]);
    expect(events.map((x) => x.type)).not.toContain("run.admitted");
  });

  it("leaves nothing behind when the admitting transaction rolls back", async () => {
    const wf = await e.workflow(oneStep("Rolled back"));
    const ctx = e.ws.ctx("editor");
    let runId = "";
    let inside: Awaited<ReturnType<typeof executorRowsFor>> | undefined;
    const rollback = new Error("rollback");
    const tx = e.db.db.transaction(async (tx) => {
      const r = await createRun(tx, ctx, {
        workspaceId: e.ws.workspaceId,
        workflowId: wf,
        input: {},
        trigger: { type: "manual" },
        initiator: { type: "user", id: ctx.actor.type === "user" ? ctx.actor.userId : null },
        accountableUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
      });
      runId = r.run.id;
      const [ev] = await tx
        .select({ id: executorEvents.id })
        .from(executorEvents)
        .where(eq(executorEvents.externalId, `start_${runId}`));
      const xr = ev
        ? await tx.select().from(executorExecutions).where(eq(executorExecutions.eventId, ev.id))
        : [];
      const jobs = xr[0]
        ? await tx.select().from(executorJobs).where(eq(executorJobs.runId, xr[0].id))
        : [];
      inside = { events: ev ? 1 : 0, runs: xr.length, jobs: jobs.length, outbox: 0 };
      throw rollback;
    });
    await expect(tx).rejects.toBe(rollback);
    // Inside the transaction the start was there (so the check below can fail) …
    expect(inside).toEqual({ events: 1, runs: 1, jobs: 1, outbox: 0 });
    // … and the rollback took all of it: no run, no executor rows, no outbox row.
    expect(await e.db.db.select().from(runs).where(eq(runs.id, runId))).toEqual([]);
    expect(await executorRowsFor(e, runId)).toEqual({ events: 0, runs: 0, jobs: 0, outbox: 0 });
  });

  it("under concurrency with a full workspace: queued runs start FIFO as slots free, none left behind, each started once", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Busy");
    await e.db.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerWorkspace: 2, maxActiveRunsPerUser: 2 } })
      .where(eq(workspaces.id, fx.workspaceId));
    const wf = await e.workflow(oneStep("Many"), fx);
    const started = await Promise.all(
      // Half with a key (inserted queued, then admitted), half without (admitted, then inserted).
      Array.from({ length: 16 }, (_, i) =>
        startRun({
          ctx: fx.ctx("editor"),
          input: { workflowId: wf, ...(i % 2 ? { idempotencyKey: `busy-${i}` } : {}) },
        }),
      ),
    );
    // At most two were admitted at creation; the rest queued behind them.
    expect(started.filter((s) => s.status === "running").length).toBeLessThanOrEqual(2);
    expect(started.filter((s) => s.status === "queued").length).toBeGreaterThanOrEqual(14);
    const ids = started.map((s) => s.runId);
    for (const id of ids) {
      const run = await e.waitFor(id, ["completed", "failed"], { timeoutMs: 60_000 });
      expect(run.status).toBe("completed");
    }
    const left = await e.db.db
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.workspaceId, fx.workspaceId), eq(runs.status, "queued")));
    expect(left).toEqual([]);
    for (const id of ids) {
      const rows = await executorRowsFor(e, id);
      expect(rows).toMatchObject({ events: 1, runs: 1, outbox: 0 });
    }
    // Runs that waited say so: queued at creation, admitted later.
    const queuedEvents = await e.db.db
      .select({ runId: runEvents.runId, type: runEvents.type, data: runEvents.data })
      .from(runEvents)
      .where(
        and(inArray(runEvents.runId, ids), inArray(runEvents.type, ["run.queued", "run.admitted"])),
      );
    for (const s of started) {
      const mine = queuedEvents.filter((x) => x.runId === s.runId);
      expect(mine.map((x) => x.type).sort()).toEqual(
        s.status === "running" ? ["run.queued"] : ["run.admitted", "run.queued"],
      );
      expect(mine.find((x) => x.type === "run.queued")!.data).toMatchObject({
        admitted: s.status === "running",
      });
    }
  });
});

describe("a real Inngest (no executor in this process): run starts go through the outbox", () => {
  let e: RunHarness;
  beforeAll(async () => {
    e = await startRunHarness("admission-outbox", { inProcess: false });
  });
  afterAll(async () => {
    await e?.close();
  });

  it("writes the start message to the outbox; the relay delivers it once and the run completes", async () => {
    const wf = await e.workflow(oneStep("Relayed"));
    await e.relay.stop();
    const started = await startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf } });
    // Committed with the run, not yet delivered: the executor has nothing.
    expect(await executorRowsFor(e, started.runId)).toEqual({
      events: 0,
      runs: 0,
      jobs: 0,
      outbox: 1,
    });
    const { createOutboxDeliverer } = await import("@/server/services/outbox/deliver");
    const { startOutboxRelay } = await import("@/server/services/outbox/relay-runner");
    const { createLogger } = await import("@/lib/log");
    e.relay = startOutboxRelay({
      db: e.db.db,
      deliver: createOutboxDeliverer((events) => e.h.executor.send(events)),
      log: createLogger({}),
      pollMs: 50,
    });
    const run = await e.waitFor(started.runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    const [box] = await e.db.db
      .select()
      .from(outbox)
      .where(eq(outbox.id, `start_${started.runId}`));
    expect(box!.deliveredAt).not.toBeNull();
    expect(await executorRowsFor(e, started.runId)).toMatchObject({ events: 1, runs: 1 });
  });
});
