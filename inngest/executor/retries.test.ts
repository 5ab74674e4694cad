/**
 * Step and function retries (protocol §2.9), RetryAfterError, NonRetriableError, final failure,
 * onFailure handlers, the system events, and lease expiry → retry.
 */
import { sql } from "drizzle-orm";
import { NonRetriableError, RetryAfterError } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "../../db/client";
import { inTx } from "./context";
import { createExecutor } from "./executor";
import { ingestEvents } from "./events";
import { claimJobs, LostLeaseError } from "./queue";
import { completeJobAndLoadExecution } from "./execution-state";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";

const bridge = executorBridge();
const inngest = testClient("retry", bridge);
const counts = new Map<string, number>();
const count = (k: string) => {
  const n = (counts.get(k) ?? 0) + 1;
  counts.set(k, n);
  return n;
};
const failures: Array<{ message: string; originalEvent: string; runId: string }> = [];

const flaky = inngest.createFunction(
  { id: "flaky", retries: 3, triggers: [{ event: "retry/flaky" }] },
  async ({ step }) => {
    const v = await step.run("sometimes", ({ attempt }: { attempt?: number } = {}) => {
      const n = count("flaky");
      if (n < 3) throw new Error(`boom ${n}`);
      return { n, attempt };
    });
    return v;
  },
);

const exhausted = inngest.createFunction(
  {
    id: "exhausted",
    retries: 2,
    triggers: [{ event: "retry/exhausted" }],
    onFailure: async ({ error, event, runId }) => {
      failures.push({ message: error.message, originalEvent: event.data.event.name, runId });
    },
  },
  async ({ step }) => {
    await step.run("always", () => {
      count("always");
      throw new Error("always fails");
    });
    return "unreachable";
  },
);

const caught = inngest.createFunction(
  { id: "caught", retries: 0, triggers: [{ event: "retry/caught" }] },
  async ({ step }) => {
    try {
      await step.run("bad", () => {
        throw new Error("bad step");
      });
    } catch (e) {
      return `caught: ${(e as Error).message}`;
    }
    return "not caught";
  },
);

const retryAfter = inngest.createFunction(
  { id: "retry-after", triggers: [{ event: "retry/after" }] },
  async ({ step }) => {
    return step.run("rate-limited", () => {
      if (count("retry-after") === 1) throw new RetryAfterError("slow down", "30s");
      return "done";
    });
  },
);

const nonRetriable = inngest.createFunction(
  { id: "non-retriable", retries: 5, triggers: [{ event: "retry/nre" }] },
  async ({ step }) => {
    await step.run("fatal", () => {
      count("nre");
      throw new NonRetriableError("do not retry me");
    });
  },
);

const fnLevel = inngest.createFunction(
  { id: "fn-level", retries: 3, triggers: [{ event: "retry/fn" }] },
  async ({ step, attempt }) => {
    const s = await step.run("once", () => count("fn-level.step"));
    if (attempt < 2) throw new Error(`function error on attempt ${attempt}`);
    return { s, attempt };
  },
);

const fnFatal = inngest.createFunction(
  {
    id: "fn-fatal",
    retries: 1,
    triggers: [{ event: "retry/fn-fatal" }],
    onFailure: async ({ error }) =>
      void failures.push({ message: error.message, originalEvent: "fn-fatal", runId: "" }),
  },
  async () => {
    count("fn-fatal");
    throw new Error("the function itself fails");
  },
);

const attemptEcho = inngest.createFunction(
  { id: "attempt-echo", triggers: [{ event: "retry/lease" }] },
  async ({ step, attempt }) => {
    const seen = await step.run("record", () => attempt);
    return { seen };
  },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [flaky, exhausted, caught, retryAfter, nonRetriable, fnLevel, fnFatal, attemptEcho],
    bridge,
    label: "retries",
    // Only local wake-ups drive this executor (no polling): a missed wake-up fails a test here.
    executor: { pollIntervalMs: 60_000 },
  });
});
afterAll(async () => h?.close());

describe("step retries", () => {
  it("retries a failing step with backoff until it succeeds", async () => {
    const run = await h.trigger("retry/flaky");
    expect(run.status).toBe("completed");
    expect(run.output).toMatchObject({ n: 3 });
    const step = run.steps.find((s) => s.name === "sometimes")!;
    expect(step.attempts).toBe(3);
    expect(step.errors.map((e) => e.message)).toEqual(["boom 1", "boom 2"]);
    const errored = run.history.filter((e) => e.type === "step.errored");
    // The harness backoff is 20 ms × attempt; attempts count up per retry.
    expect(errored.map((e) => [e.attempt, e.data?.retryInMs])).toEqual([
      [0, 20],
      [1, 40],
    ]);
    expect(run.history.find((e) => e.type === "step.completed")?.attempt).toBe(2);
  });

  it("fails the step after its last attempt; uncaught, the run fails and onFailure runs", async () => {
    const run = await h.trigger("retry/exhausted");
    expect(counts.get("always")).toBe(3); // retries: 2 → 3 attempts
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ message: "always fails" });
    expect(run.steps[0]).toMatchObject({
      status: "failed",
      output: { error: { message: "always fails" } },
    });

    const failed = await h.until(async () => {
      const events = await h.executor.admin.listEvents({ name: "inngest/function.failed" });
      return events.find((e) => (e.payload as { data: { run_id: string } }).data.run_id === run.id);
    }, "the function.failed event");
    expect((failed.payload as { data: Record<string, unknown> }).data).toMatchObject({
      function_id: "retry-exhausted",
      run_id: run.id,
      error: { message: "always fails" },
      event: { name: "retry/exhausted" },
    });
    const finished = await h.executor.admin.listEvents({ name: "inngest/function.finished" });
    expect(
      finished.some(
        (e) => (e.payload as { data: { run_id: string; error?: unknown } }).data.run_id === run.id,
      ),
    ).toBe(true);

    const [handlerRun] = await h.executionsFor(failed.id);
    expect((await h.waitForExecution(handlerRun!)).functionId).toBe("retry-exhausted-failure");
    expect(failures).toContainEqual({
      message: "always fails",
      originalEvent: "retry/exhausted",
      runId: handlerRun,
    });
  });

  it("a caught step error lets the run continue", async () => {
    const run = await h.trigger("retry/caught");
    expect(run.status).toBe("completed");
    expect(run.output).toBe("caught: bad step");
  });

  it("honours RetryAfterError: the retry waits for the given time", async () => {
    const eventId = await h.send("retry/after");
    const [runId] = await h.executionsFor(eventId);
    const pending = await h.until(async () => {
      const r = await h.executor.admin.getExecution(runId!);
      return r?.history.some((e) => e.type === "step.errored") ? r : undefined;
    }, "the first failed attempt");
    expect(pending.history.find((e) => e.type === "step.errored")?.data?.retryInMs).toBe(30_000);
    const retry = pending.jobs.find((j) => j.kind === "call")!;
    expect(new Date(retry.runAt).getTime() - h.clock.now()).toBeGreaterThan(25_000);
    expect(counts.get("retry-after")).toBe(1);

    h.clock.advance(30_000);
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("done");
    expect(counts.get("retry-after")).toBe(2);
  });

  it("NonRetriableError fails at once without retries", async () => {
    const run = await h.trigger("retry/nre");
    expect(run.status).toBe("failed");
    expect(counts.get("nre")).toBe(1);
    expect(run.error).toMatchObject({ name: "NonRetriableError", message: "do not retry me" });
  });
});

describe("function-level errors", () => {
  it("retries the function call and keeps memoised steps", async () => {
    const run = await h.trigger("retry/fn");
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ s: 1, attempt: 2 });
    expect(counts.get("fn-level.step")).toBe(1);
    expect(run.history.filter((e) => e.type === "function.errored")).toHaveLength(2);
  });

  it("fails the run after the last attempt and emits function.failed for onFailure", async () => {
    const run = await h.trigger("retry/fn-fatal");
    expect(run.status).toBe("failed");
    expect(counts.get("fn-fatal")).toBe(2);
    expect(run.error).toMatchObject({ message: "the function itself fails" });
    await h.until(
      () => failures.find((f) => f.originalEvent === "fn-fatal"),
      "the onFailure handler",
    );
  });
});

describe("leases", () => {
  it("a job leased by a worker that died runs again after the lease expires, fenced", async () => {
    // A second executor on the same database plays the dead worker: it leases the job, never finishes it.
    const dead = createExecutor({
      db: h.db,
      clock: h.clock,
      leaseMs: 300,
      log: h.executor.ctx.log,
    });
    await dead.ctx.registry.refresh(h.db.db);
    // Hold the live worker (no free slots) once earlier runs are done, so only the dead one claims.
    const live = h.executor.ctx.opts;
    const slots = live.concurrency;
    await h.until(async () => {
      const [row] = await execRows<{ n: number }>(
        h.db.db,
        sql`select count(*)::int as n from executor_jobs`,
      );
      return row!.n === 0;
    }, "an empty queue");
    live.concurrency = 0;
    const [eventId] = await inTx(dead.ctx, (c) =>
      ingestEvents(c, [{ name: "retry/lease", data: {} }]),
    );
    const stolen = await claimJobs(dead.ctx, 10);
    expect(stolen).toHaveLength(1);
    live.concurrency = slots;
    const [runId] = await h.executionsFor(eventId!);
    await h.until(async () => {
      const [row] = await execRows<{ expired: boolean }>(
        h.db.db,
        sql`select lease_until < now() as expired from executor_jobs where id = ${stolen[0]!.id}`,
      );
      return row?.expired;
    }, "the dead worker's lease to expire");
    h.executor.ctx.wake();
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("completed");
    // Re-run with attempt + 1: the SDK saw attempt 1.
    expect(run.output).toEqual({ seen: 1 });
    expect(run.history.find((e) => e.type === "step.completed")?.attempt).toBe(1);
    // The dead worker's late result is refused: its lease token no longer matches.
    await expect(
      inTx(dead.ctx, (c) => completeJobAndLoadExecution(c, stolen[0]!)),
    ).rejects.toBeInstanceOf(LostLeaseError);
    const left = await execRows(
      h.db.db,
      sql`select count(*)::int as n from executor_jobs where run_id = ${runId!}`,
    );
    expect(left[0]).toEqual({ n: 0 });
  });
});
