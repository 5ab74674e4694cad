/**
 * Per-run limits (`limits: { timeoutMs, maxSteps, maxParallel }` on run start): they only tighten
 * the definition's constraints, the engine runs under them, and reruns inherit them.
 */
import { eq } from "drizzle-orm";
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { startRun } from "@/server/services/runs/start-run";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
let slow: LocalServer;
/** Requests the slow server holds; it answers them all once 3 are in flight, else after 300 ms. */
const held: http.ServerResponse[] = [];
beforeAll(async () => {
  e = await startRunHarness("run-limits");
  slow = await startHttpServer((_req, res) => {
    held.push(res);
    const release = () => {
      for (const r of held.splice(0)) if (!r.writableEnded) r.end("{}");
    };
    if (held.length >= 3) release();
    else setTimeout(release, 300);
  });
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
});
afterAll(async () => {
  await slow?.close();
  await e?.close();
});

const TERMINAL = ["completed", "failed", "cancelled", "timed_out"];

/*
 *   one ──▶ two ──▶ three        (constraints.maxSteps 10; the run says 2)
 */
const chain = {
  schemaVersion: 1,
  name: "Chain",
  constraints: { maxSteps: 10, maxParallel: 4, timeoutMs: 3_600_000 },
  steps: [
    { id: "one", type: "transform", config: { value: 1 } },
    { id: "two", type: "transform", config: { value: 2 } },
    { id: "three", type: "transform", config: { value: 3 } },
  ],
};

describe("per-run limits", () => {
  it("maxSteps 2 over a 3-step chain fails the run at the third step, naming the limit; a rerun inherits it", async () => {
    const wf = await e.workflow(chain);
    const runId = await e.start(wf, {}, e.ws, { limits: { maxSteps: 2 } });
    const run = await e.waitFor(runId, TERMINAL);
    expect(run.status).toBe("failed");
    expect(run.limits).toEqual({ maxSteps: 2 });
    expect((run.error as { message: string }).message).toMatch(
      /limits\.maxSteps: 2 step attempts\) at step "three"/,
    );

    const rerun = await rerunRun({ ctx: e.ws.ctx("editor"), input: { runId } });
    const again = await e.waitFor(rerun.runId, TERMINAL);
    expect([again.status, again.limits]).toEqual(["failed", { maxSteps: 2 }]);

    // The same chain without the limit completes: the limit, not the chain, stopped the run.
    const free = await e.waitFor(await e.start(wf), TERMINAL);
    expect(free.status).toBe("completed");
  });

  it("timeoutMs shortens the run's deadline: the run times out at its own, not the definition's", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Gate",
      constraints: { timeoutMs: 3_600_000 },
      steps: [{ id: "ask", type: "approval", config: { prompt: "?", timeout: "7d" } }],
    });
    const limited = await e.start(wf, {}, e.ws, { limits: { timeoutMs: 60_000 } });
    const free = await e.start(wf);
    await e.pendingApproval(limited);
    await e.pendingApproval(free);
    const [row] = await e.db.db.select().from(runs).where(eq(runs.id, limited));
    expect(row!.deadlineAt!.getTime() - row!.startedAt!.getTime()).toBe(60_000);
    e.h.clock.advance(61_000);
    expect((await e.waitFor(limited, TERMINAL)).status).toBe("timed_out");
    const [other] = await e.db.db.select().from(runs).where(eq(runs.id, free));
    expect(other!.status).toBe("waiting");
  });

  /*
   *   a   b   c        three independent http steps against a server that holds each request
   *                    until three are in flight (or 300 ms): maxParallel bounds how many overlap
   */
  it("maxParallel bounds how many steps run at once", async () => {
    const step = (id: string) => ({
      id,
      type: "http",
      config: { method: "GET", url: `${slow.origin}/${id}` },
    });
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Fan",
      constraints: { maxParallel: 4 },
      steps: [step("a"), step("b"), step("c")],
      edges: [],
    });
    const order = async (runId: string) =>
      (await e.events(runId)).filter((x) => /^step\.(started|completed):/.test(x));

    const limited = await e.start(wf, {}, e.ws, { limits: { maxParallel: 1 } });
    expect((await e.waitFor(limited, TERMINAL)).status).toBe("completed");
    const one = await order(limited);
    // One at a time: every start is followed by its own completion before the next start.
    for (let i = 0; i < one.length; i += 2)
      expect(one[i + 1]).toBe(one[i]!.replace("started", "completed"));
    expect(one).toHaveLength(6);

    const free = await e.start(wf);
    expect((await e.waitFor(free, TERMINAL)).status).toBe("completed");
    const all = await order(free);
    expect(all.slice(0, 3).every((x) => x.startsWith("step.started"))).toBe(true);
  });

  it("refuses limits looser than the definition's (or the workspace's) with 400 naming the field and the maximum", async () => {
    const wf = await e.workflow(chain);
    const start = (limits: Record<string, number>) =>
      startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf, limits } });
    await expect(start({ maxSteps: 11, maxParallel: 4 })).rejects.toMatchObject({
      code: "VALIDATION",
      message: "limits.maxSteps may only tighten the workflow's limit: at most 10, got 11",
      issues: [{ path: ["limits", "maxSteps"] }],
    });
    await expect(start({ timeoutMs: 3_600_001 })).rejects.toMatchObject({
      issues: [
        { path: ["limits", "timeoutMs"], message: expect.stringMatching(/at most 3600000/) },
      ],
    });
    await expect(start({ maxParallel: 5 })).rejects.toMatchObject({
      issues: [{ path: ["limits", "maxParallel"] }],
    });
    await expect(start({ maxSteps: 0 })).rejects.toMatchObject({ code: "VALIDATION" });
    // The limits are part of an idempotent request: another value under the same key is refused.
    const keyed = (limits: Record<string, number>) =>
      startRun({ ctx: e.ws.ctx("editor"), input: { workflowId: wf, limits, idempotencyKey: "k" } });
    const first = await keyed({ maxSteps: 5 });
    expect((await keyed({ maxSteps: 5 })).runId).toBe(first.runId);
    await expect(keyed({ maxSteps: 4 })).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    // Equal to the definition's is allowed (not looser).
    const ok = await start({ maxSteps: 10, maxParallel: 4, timeoutMs: 3_600_000 });
    expect((await e.waitFor(ok.runId, TERMINAL)).status).toBe("completed");
  });
});
