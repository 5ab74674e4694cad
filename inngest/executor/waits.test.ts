/**
 * Durable timers and waits: sleep / sleepUntil, waitForEvent (match, if, timeout, first match wins
 * under concurrent events), cancelOn, invoke (result, error, timeout), admin cancel, timeouts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  executorBridge,
  startHarness,
  testClient,
  TEST_EXECUTOR_URL,
  type Harness,
} from "./testing";

const bridge = executorBridge();
const inngest = testClient("waits", bridge);
const counts = new Map<string, number>();
const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);

const sleeper = inngest.createFunction(
  { id: "sleeper", triggers: [{ event: "w/sleep" }] },
  async ({ event, step }) => {
    await step.sleep("nap", "1h");
    const until = (event.data as { until: string }).until;
    await step.sleepUntil("alarm", new Date(until));
    return step.run("after", () => "awake");
  },
);

const waiter = inngest.createFunction(
  { id: "waiter", triggers: [{ event: "w/order" }] },
  async ({ step }) => {
    const paid = await step.waitForEvent("paid", {
      event: "w/paid",
      match: "data.orderId",
      timeout: "1h",
    });
    const big = await step.waitForEvent("big", {
      event: "w/bid",
      if: "async.data.amount > 100 && async.data.orderId == event.data.orderId",
      timeout: "2h",
    });
    return { paid, big };
  },
);

const timeouter = inngest.createFunction(
  { id: "timeouter", triggers: [{ event: "w/timeout" }] },
  async ({ step }) => {
    const ev = await step.waitForEvent("never", { event: "w/never", timeout: "30m" });
    return { ev };
  },
);

const cancellable = inngest.createFunction(
  {
    id: "cancellable",
    triggers: [{ event: "w/job" }],
    cancelOn: [{ event: "w/job.cancel", match: "data.jobId" }],
  },
  async ({ step }) => {
    await step.sleep("wait-a-day", "1d");
    await step.run("work", () => count("cancellable.work"));
    return "finished";
  },
);

const child = inngest.createFunction(
  { id: "child", triggers: [{ event: "w/child" }] },
  async ({ event, step }) => {
    const mode = (event.data as { mode: string }).mode;
    if (mode === "fail") {
      await step.run("fail", () => {
        throw new Error("child failed");
      });
    }
    if (mode === "hang") await step.waitForEvent("forever", { event: "w/nothing", timeout: "7d" });
    return step.run("compute", () => ({ doubled: (event.data as { n: number }).n * 2 }));
  },
);

const parent = inngest.createFunction(
  { id: "parent", triggers: [{ event: "w/parent" }] },
  async ({ event, step }) => {
    const mode = (event.data as { mode: string }).mode;
    try {
      const result = await step.invoke("call-child", {
        function: child,
        data: { n: 21, mode },
        timeout: "1m",
      });
      return { ok: result };
    } catch (e) {
      return { err: (e as Error).name + ": " + (e as Error).message };
    }
  },
);

const limited = inngest.createFunction(
  { id: "limited", timeouts: { finish: "10m" }, triggers: [{ event: "w/limited" }] },
  async ({ step }) => {
    await step.sleep("too-long", "1h");
    return "unreachable";
  },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [sleeper, waiter, timeouter, cancellable, child, parent, limited],
    bridge,
    label: "waits",
  });
});
afterAll(async () => h?.close());

async function stepStatus(runId: string, name: string) {
  return (await h.executor.admin.getExecution(runId))?.steps.find((s) => s.name === name)?.status;
}

describe("sleep", () => {
  it("sleeps on durable timers (step.sleep and step.sleepUntil)", async () => {
    const until = new Date(h.clock.now() + 3 * 3_600_000).toISOString();
    const eventId = await h.send("w/sleep", { until });
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "nap")) === "sleeping", "the first sleep");
    const job = (await h.executor.admin.getExecution(runId!))!.jobs.find((j) => j.kind === "wake")!;
    expect(Math.abs(new Date(job.runAt).getTime() - (h.clock.now() + 3_600_000))).toBeLessThan(
      5_000,
    );

    h.clock.advance(3_600_000);
    await h.until(async () => (await stepStatus(runId!, "alarm")) === "sleeping", "the sleepUntil");
    expect((await h.executor.admin.getExecution(runId!))!.status).toBe("running");
    h.clock.advanceTo(Date.parse(until));
    const run = await h.waitForExecution(runId!);
    expect(run.output).toBe("awake");
    // A finished sleep is memoised as null.
    expect(run.steps.filter((s) => s.op === "Sleep").map((s) => s.output)).toEqual([null, null]);
  });
});

describe("waitForEvent", () => {
  it("resumes on a matching event (match / if) with the raw event as the memo", async () => {
    const eventId = await h.send("w/order", { orderId: "o1" });
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "paid")) === "waiting", "the wait");
    await h.send("w/paid", { orderId: "other" });
    expect(await stepStatus(runId!, "paid")).toBe("waiting");
    const paidId = await h.send("w/paid", { orderId: "o1", amount: 5 });
    await h.until(async () => (await stepStatus(runId!, "big")) === "waiting", "the second wait");
    await h.send("w/bid", { orderId: "o1", amount: 50 }); // `if` false
    await h.send("w/bid", { orderId: "o2", amount: 500 }); // other order
    expect(await stepStatus(runId!, "big")).toBe("waiting");
    await h.send("w/bid", { orderId: "o1", amount: 500 });
    const run = await h.waitForExecution(runId!);
    const out = run.output as {
      paid: { id: string; name: string; data: unknown };
      big: { data: unknown };
    };
    expect(out.paid).toMatchObject({
      id: paidId,
      name: "w/paid",
      data: { orderId: "o1", amount: 5 },
    });
    expect(out.big.data).toEqual({ orderId: "o1", amount: 500 });
    // Matched waits memoise the whole event, unwrapped.
    expect(run.steps.find((s) => s.name === "paid")?.output).toMatchObject({
      id: paidId,
      name: "w/paid",
    });
  });

  it("resolves to null on timeout", async () => {
    const eventId = await h.send("w/timeout");
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "never")) === "waiting", "the wait");
    h.clock.advance(30 * 60_000 + 1_000);
    const run = await h.waitForExecution(runId!);
    expect(run.output).toEqual({ ev: null });
    expect(run.history.some((e) => e.type === "wait.timed_out")).toBe(true);
    // An event after the timeout changes nothing.
    await h.send("w/never");
    expect(
      (await h.executor.admin.getExecution(runId!))!.history.filter(
        (e) => e.type === "wait.resumed",
      ),
    ).toHaveLength(0);
  });

  it("the first of many concurrent matching events wins, exactly once", async () => {
    const eventId = await h.send("w/order", { orderId: "race" });
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "paid")) === "waiting", "the wait");
    // Ten senders at once, each through the event API (separate transactions).
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        bridge
          .fetch(`${TEST_EXECUTOR_URL}/e/k`, {
            method: "POST",
            body: JSON.stringify({ name: "w/paid", data: { orderId: "race", i } }),
          })
          .then(async (r) => ((await r.json()) as { ids: string[] }).ids[0]!),
      ),
    );
    await h.until(async () => (await stepStatus(runId!, "big")) === "waiting", "the second wait");
    const run = (await h.executor.admin.getExecution(runId!))!;
    const resumed = run.history.filter((e) => e.type === "wait.resumed" && e.stepName === "paid");
    expect(resumed).toHaveLength(1);
    const winner = run.steps.find((s) => s.name === "paid")!.output as { id: string };
    expect(sent).toContain(winner.id);
    expect(resumed[0]!.data?.eventId).toBe(winner.id);
    await h.executor.admin.cancelExecution(runId!);
  });
});

describe("cancelOn and cancellation", () => {
  it("cancels a sleeping run when a matching cancel event arrives", async () => {
    const eventId = await h.send("w/job", { jobId: "j1" });
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "wait-a-day")) === "sleeping", "the sleep");
    await h.send("w/job.cancel", { jobId: "j2" });
    expect((await h.executor.admin.getExecution(runId!))!.status).toBe("running");
    const cancelEvent = await h.send("w/job.cancel", { jobId: "j1" });
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("cancelled");
    expect(run.error).toMatchObject({
      message: "function cancelled",
      reason: expect.stringContaining(cancelEvent),
    });
    expect(run.jobs).toEqual([]);
    h.clock.advance(2 * 86_400_000);
    expect(counts.get("cancellable.work")).toBeUndefined();

    const cancelled = await h.executor.admin.listEvents({ name: "inngest/function.cancelled" });
    const mine = cancelled.find(
      (e) => (e.payload as { data: { run_id: string } }).data.run_id === runId,
    );
    expect((mine!.payload as { data: unknown }).data).toMatchObject({
      function_id: "waits-cancellable",
      run_id: runId,
      error: { name: "Error", message: "function cancelled" },
      event: { name: "w/job", data: { jobId: "j1" } },
    });
  });

  it("cancels through the admin HTTP API", async () => {
    const eventId = await h.send("w/job", { jobId: "j3" });
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "wait-a-day")) === "sleeping", "the sleep");
    const res = await bridge.fetch(`${TEST_EXECUTOR_URL}/admin/runs/${runId}/cancel`, {
      method: "POST",
    });
    expect(res.status).toBe(200);
    expect((await h.waitForExecution(runId!)).status).toBe("cancelled");
    const again = await bridge.fetch(`${TEST_EXECUTOR_URL}/admin/runs/${runId}/cancel`, {
      method: "POST",
    });
    expect(again.status).toBe(409);
  });

  it("timeouts.finish cancels a run that runs too long", async () => {
    const eventId = await h.send("w/limited");
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => (await stepStatus(runId!, "too-long")) === "sleeping", "the sleep");
    h.clock.advance(10 * 60_000 + 1_000);
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("cancelled");
    expect(run.error).toMatchObject({ reason: "timeouts.finish elapsed" });
  });
});

describe("invoke", () => {
  it("runs the child and returns its result to the parent", async () => {
    const run = await h.trigger("w/parent", { mode: "ok" });
    expect(run.output).toEqual({ ok: { doubled: 42 } });
    expect(run.steps.find((s) => s.name === "call-child")?.output).toEqual({
      data: { doubled: 42 },
    });
    const children = await h.executor.admin.listExecutions({ functionId: "waits-child" });
    const mine = children.find((c) => c.parentRunId === run.id)!;
    expect(mine.eventName).toBe("inngest/function.invoked");
    expect(mine.status).toBe("completed");
  });

  it("surfaces the child's failure as a step error", async () => {
    const run = await h.trigger("w/parent", { mode: "fail" });
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ err: expect.stringContaining("child failed") });
  });

  it("times out the invoke when the child takes too long", async () => {
    const eventId = await h.send("w/parent", { mode: "hang" });
    const [runId] = await h.executionsFor(eventId);
    await h.until(
      async () => (await stepStatus(runId!, "call-child")) === "invoking",
      "the invoke",
    );
    const childRun = await h.until(
      async () =>
        (await h.executor.admin.listExecutions({ functionId: "waits-child" })).find(
          (c) => c.parentRunId === runId,
        ),
      "the child run",
    );
    await h.until(
      async () =>
        (await h.executor.admin.getExecution(childRun.id))?.steps.some(
          (s) => s.status === "waiting",
        ),
      "the child to wait",
    );
    h.clock.advance(60_000 + 1_000);
    const run = await h.waitForExecution(runId!);
    expect(run.output).toEqual({
      err: "InngestInvokeTimeoutError: Timed out waiting for invoked function to complete",
    });
    // The child keeps running; it is not cancelled by the parent's timeout.
    expect((await h.executor.admin.getExecution(childRun.id))!.status).toBe("running");
    await h.executor.admin.cancelExecution(childRun.id);
  });
});
