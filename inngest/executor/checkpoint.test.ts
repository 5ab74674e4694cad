/**
 * Checkpointing through the real SDK and a real database: the SDK runs consecutive steps in one
 * request and POSTs each to /v1/checkpoint/:runId/async; the executor fences them by the request's
 * job lease. (Forced on here whatever SLUICE_EXECUTOR_CHECKPOINTING says.)
 *
 *   executor ──call (fn_id, qi_id)──► SDK: s0 ─ckpt─► s1 ─ckpt─► … ─► 206 [RunComplete {data}]
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "../../db/client";
import {
  executorBridge,
  startHarness,
  testClient,
  TEST_EXECUTOR_URL,
  type ExecutorBridge,
  type Harness,
} from "./testing";
import type { TransportRequest } from "./transport";

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

type CheckpointBody = {
  run_id: string;
  fn_id: string;
  qi_id: string;
  steps: Array<{ id: string; op: string; data: unknown }>;
};

/** The SDK's fetch, recording its checkpoint POSTs; fails those of `ckpt-flaky` (endpoint down). */
const inner = executorBridge();
const checkpoints: Array<{ body: CheckpointBody; status: number }> = [];
const bridge: ExecutorBridge = {
  attach: inner.attach,
  fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    if (!new URL(req.url).pathname.startsWith("/v1/checkpoint")) return inner.fetch(req);
    const body = JSON.parse(await req.clone().text()) as CheckpointBody;
    const res =
      body.fn_id === "ckpt-flaky"
        ? new Response(JSON.stringify({ error: "checkpoint endpoint down" }), { status: 500 })
        : await inner.fetch(req);
    checkpoints.push({ body, status: res.status });
    return res;
  }) as typeof fetch,
};

const inngest = testClient("ckpt", bridge);
const ran = new Map<string, number>();
const bump = (k: string) => ran.set(k, (ran.get(k) ?? 0) + 1);

function chain(id: string, n: number, opts: { checkpointing?: false } = {}) {
  return inngest.createFunction(
    { id, triggers: [{ event: `ckpt/${id}` }], ...opts },
    async ({ step }) => {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        sum += await step.run(`s${i}`, () => {
          bump(`${id}.s${i}`);
          return i;
        });
      }
      return { sum };
    },
  );
}

const returns = inngest.createFunction(
  { id: "returns", triggers: [{ event: "ckpt/returns" }] },
  async ({ event, step }) => {
    await step.run("one", () => 1);
    return (event.data as { value?: unknown }).value;
  },
);

/** Blocks in step `b` until the test opens the gate, so the request stays in flight. */
const gates = new Map<string, () => void>();
const gated = inngest.createFunction(
  { id: "gated", triggers: [{ event: "ckpt/gated" }] },
  async ({ event, step }) => {
    const tag = (event.data as { tag: string }).tag;
    const a = await step.run("a", () => {
      bump(`${tag}.a`);
      return "A";
    });
    const b = await step.run("b", async () => {
      bump(`${tag}.b`);
      if (ran.get(`${tag}.b`) === 1) await new Promise<void>((r) => gates.set(tag, r));
      return "B";
    });
    const c = await step.run("c", () => {
      bump(`${tag}.c`);
      return "C";
    });
    return a + b + c;
  },
);

const functions = [
  chain("chain5", 5),
  chain("chain20", 20),
  chain("classic", 20, { checkpointing: false }),
  chain("limit", 30),
  chain("flaky", 2),
  returns,
  gated,
];

let h: Harness;
const sdkCalls: TransportRequest[] = [];
const callsFor = (runId: string) =>
  sdkCalls.filter((r) => r.method === "POST" && JSON.parse(r.body).ctx?.run_id === runId);
const checkpointsFor = (runId: string) => checkpoints.filter((c) => c.body.run_id === runId);

beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions,
    bridge,
    label: "checkpoint",
    executor: { checkpointing: true, maxStepsPerRun: 25, leaseMs: 2_000 },
    onCall: (req) => sdkCalls.push(req),
  });
});
afterAll(async () => h?.close());

async function runOf(eventName: string, data: Record<string, unknown> = {}) {
  const [runId] = await h.executionsFor(await h.send(eventName, data));
  return runId!;
}

async function postCheckpoint(runId: string, body: Record<string, unknown>) {
  const res = await h.executor.fetch(
    new Request(`${TEST_EXECUTOR_URL}/v1/checkpoint/${runId}/async`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const writesOf = async (runId: string) => {
  const run = (await h.executor.admin.getExecution(runId))!;
  return { steps: run.steps.length, history: run.history.length };
};

async function callJob(runId: string) {
  const [job] = await execRows<{ id: number; lease_token: string }>(
    h.db.db,
    sql`select id, lease_token from executor_jobs where run_id = ${runId} and kind = 'call'`,
  );
  return job!;
}

describe("checkpointing", () => {
  it("runs a chain of N steps in one SDK request, N memo entries in order", async () => {
    for (const [id, n] of [
      ["chain5", 5],
      ["chain20", 20],
    ] as const) {
      const run = await h.waitForExecution(await runOf(`ckpt/${id}`));
      expect(run.status).toBe("completed");
      expect(run.output).toEqual({ sum: (n * (n - 1)) / 2 });
      expect(run.steps.map((s) => s.name)).toEqual(Array.from({ length: n }, (_, i) => `s${i}`));
      expect(run.steps.map((s) => s.output)).toEqual(
        Array.from({ length: n }, (_, i) => ({ data: i })),
      );
      for (let i = 0; i < n; i++) expect(ran.get(`${id}.s${i}`)).toBe(1);
      // One request whatever N is; one checkpoint per step (the SDK's bufferedSteps default, 1).
      expect(callsFor(run.id)).toHaveLength(1);
      const posts = checkpointsFor(run.id);
      expect(posts.map((p) => p.status)).toEqual(Array<number>(n).fill(200));
      expect(posts.flatMap((p) => p.body.steps.map((s) => s.id))).toEqual(
        Array.from({ length: n }, (_, i) => sha1(`s${i}`)),
      );
      expect(run.history.filter((e) => e.type === "step.completed")).toHaveLength(n);
    }
  });

  it("completes with the function's return value as is (RunComplete data is not unwrapped)", async () => {
    for (const value of [{ data: 1, extra: true }, { data: null }, 42, "text", undefined]) {
      const run = await h.waitForExecution(await runOf("ckpt/returns", { value }));
      expect(run.status).toBe("completed");
      expect(run.output).toEqual(value ?? null);
      expect(callsFor(run.id)).toHaveLength(1);
    }
  });

  it("refuses stale or forged checkpoints with 409 and writes nothing; a retried POST adds nothing", async () => {
    const runId = await runOf("ckpt/gated", { tag: "g1" });
    await h.until(() => gates.has("g1"), "step b in flight");
    const job = await callJob(runId);
    const [realA] = checkpointsFor(runId);
    expect(realA!.body.qi_id).toBe(`${job.id}.${job.lease_token}`);
    const before = await writesOf(runId);
    expect(before.steps).toBe(1);

    const intruder = { id: sha1("intruder"), op: "StepRun", data: 1 };
    const base = {
      run_id: runId,
      fn_id: "ckpt-gated",
      qi_id: realA!.body.qi_id,
      steps: [intruder],
    };
    for (const forged of [
      { qi_id: `${job.id}.forged-token` },
      { qi_id: `${Number(job.id) + 1000}.${job.lease_token}` },
      { qi_id: "not-a-ref" },
      { fn_id: "ckpt-chain5" },
    ]) {
      const res = await postCheckpoint(runId, { ...base, ...forged });
      expect(res.status).toBe(409);
      expect(String(res.body.error)).toMatch(/no longer current|names no request|belongs to/);
    }
    expect(await writesOf(runId)).toEqual(before);

    // The SDK retrying a POST that was saved (its answer lost): nothing is added twice.
    const retried = await postCheckpoint(runId, realA!.body);
    expect(retried).toEqual({ status: 200, body: { ok: true, saved: 0 } });
    expect(await writesOf(runId)).toEqual(before);

    gates.get("g1")!();
    const run = await h.waitForExecution(runId);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("ABC");
    expect(run.steps.map((s) => s.name)).toEqual(["a", "b", "c"]);
    expect(run.history.filter((e) => e.type === "step.completed")).toHaveLength(3);
    expect(callsFor(runId)).toHaveLength(1);
    // After the run, the same request is stale.
    const after = await writesOf(runId);
    expect((await postCheckpoint(runId, realA!.body)).status).toBe(409);
    expect(await writesOf(runId)).toEqual(after);
  });

  it("a request whose lease was taken over is stopped at its next checkpoint; the run resumes", async () => {
    const runId = await runOf("ckpt/gated", { tag: "g2" });
    await h.until(() => gates.has("g2"), "step b in flight");
    // Another worker re-claimed the job (as after a lease expiry): this request is now stale.
    await execRows(
      h.db.db,
      sql`update executor_jobs set lease_token = 'taken-over' where run_id = ${runId} and kind = 'call'`,
    );
    gates.get("g2")!();
    const run = await h.waitForExecution(runId, undefined, 20_000);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("ABC");
    expect(run.steps.map((s) => s.name)).toEqual(["a", "b", "c"]);
    // b's result from the stale request was refused (409) and the SDK stopped before c; after the
    // lease expired the job ran again (at-least-once: b twice), c once.
    const refused = checkpointsFor(runId).filter((c) => c.status === 409);
    expect(refused.map((c) => c.body.steps[0]!.id)).toEqual([sha1("b")]);
    expect([ran.get("g2.a"), ran.get("g2.b"), ran.get("g2.c")]).toEqual([1, 2, 1]);
  });

  it("falls back to answering with the steps when the checkpoint endpoint fails, and completes", async () => {
    const run = await h.waitForExecution(await runOf("ckpt/flaky"), undefined, 30_000);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ sum: 1 });
    expect(run.steps.map((s) => s.name)).toEqual(["s0", "s1"]);
    expect([ran.get("flaky.s0"), ran.get("flaky.s1")]).toEqual([1, 1]);
    // Each step: the SDK's retries of the failing POST, then a 206 with the step (one call each).
    expect(checkpointsFor(run.id).every((c) => c.status === 500)).toBe(true);
    expect(checkpointsFor(run.id).length).toBeGreaterThanOrEqual(2);
    expect(callsFor(run.id)).toHaveLength(3);
  });

  it("enforces the step limit at the checkpoint and stops the request", async () => {
    const run = await h.waitForExecution(await runOf("ckpt/limit"));
    expect(run.status).toBe("failed");
    expect(run.error?.message).toContain("exceeded the limit of 25 steps");
    expect(run.steps).toHaveLength(26);
    // The checkpoint of the 26th step answered 409: the SDK ran nothing after it.
    expect(ran.get("limit.s25")).toBe(1);
    expect(ran.get("limit.s26")).toBeUndefined();
    expect(checkpointsFor(run.id).at(-1)!.status).toBe(409);
  });

  it("runs the same code with checkpointing off on the client side: one request per step", async () => {
    const run = await h.waitForExecution(await runOf("ckpt/classic"));
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ sum: 190 });
    expect(run.steps.map((s) => s.name)).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`));
    expect(checkpointsFor(run.id)).toHaveLength(0);
    expect(callsFor(run.id)).toHaveLength(21);
  });

  it("refuses malformed, non-StepRun and oversized checkpoints before touching the run", async () => {
    const runId = await runOf("ckpt/chain5");
    await h.waitForExecution(runId);
    const bad = await postCheckpoint(runId, { fn_id: "x", qi_id: "1.a", steps: [{ id: "s" }] });
    expect(bad.status).toBe(400);
    expect(String(bad.body.error)).toContain("only StepRun is checkpointed");
    expect((await postCheckpoint(runId, { fn_id: "x", qi_id: "1.a", steps: [] })).status).toBe(400);
    const huge = await h.executor.fetch(
      new Request(`${TEST_EXECUTOR_URL}/v1/checkpoint/${runId}/async`, {
        method: "POST",
        body: "x".repeat(11 * 1024 * 1024),
      }),
    );
    expect(huge.status).toBe(413);
  });
});
