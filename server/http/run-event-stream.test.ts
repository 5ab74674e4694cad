/**
 * The SSE stream of a run's events: live events while it runs, heartbeats when idle, a bounded
 * lifetime, prompt close on client abort, and `event: end` once the run finished.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { appendRunEvents } from "../services/runs/run-events";
import { listRunEvents } from "../services/runs/list-run-events";
import { startRun } from "../services/runs/start-run";
import { createWorkflow } from "../services/workflows/create-workflow";
import { createWorkspaceFixture, type WorkspaceFixture } from "../testing/harness";
import { runEventStream } from "./run-event-stream";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("sse");
  fx = await createWorkspaceFixture(t.db, "Sse");
});
afterAll(async () => {
  await t?.close();
});

async function openRun() {
  const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `S ${Math.random()}` } });
  return (await startRun({ ctx: fx.ctx("owner"), input: { workflowId: wf.id } })).runId;
}

async function stream(runId: string, opts: Partial<Parameters<typeof runEventStream>[0]> = {}) {
  const ctx = fx.ctx("viewer");
  const first = await listRunEvents({ ctx, input: { runId } });
  return runEventStream({ ctx, runId, after: 0, first, pollMs: 20, ...opts });
}

/** Reads the stream until `until` matches or it ends. */
async function readUntil(res: Response, until: RegExp) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text, done: true };
    text += decoder.decode(value);
    if (until.test(text)) {
      await reader.cancel();
      return { text, done: false };
    }
  }
}

describe("runEventStream", () => {
  it("sends heartbeats while idle and closes at the end of its lifetime", async () => {
    const runId = await openRun();
    const t0 = Date.now();
    const { text, done } = await readUntil(
      await stream(runId, { heartbeatMs: 50, lifetimeMs: 400 }),
      /^$/,
    );
    expect(done).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    expect(text).toContain(": heartbeat\n\n");
    expect(text).not.toContain("event: end");
  });

  it("delivers events appended while streaming, then `end` when the run finishes", async () => {
    const runId = await openRun();
    const res = await stream(runId, { lifetimeMs: 10_000 });
    const reading = readUntil(res, /event: end\n/);
    await appendRunEvents(t.db, [
      { runId, workspaceId: fx.workspaceId, type: "step.completed", stepPath: "a" },
    ]);
    await t.db.update(runs).set({ status: "completed" }).where(eq(runs.id, runId));
    const { text } = await reading;
    expect(text).toMatch(/event: step\.completed\ndata: \{[^\n]*"stepPath":"a"/);
    expect(text).toContain('event: end\ndata: {"status":"completed"}');
    // Each event once, in id order.
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("stops promptly when the client goes away", async () => {
    const runId = await openRun();
    const abort = new AbortController();
    const t0 = Date.now();
    const res = await stream(runId, { lifetimeMs: 60_000, pollMs: 5_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    const { done } = await readUntil(res, /^$/);
    expect(done).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
