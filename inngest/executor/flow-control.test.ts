/**
 * Flow control (concurrency limit + key, idempotency) and the loud refusal of everything the
 * executor does not implement: at sync (function marked invalid, listed, logged) and at run time
 * (the run fails with an error naming the op).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../lib/log";
import {
  executorBridge,
  startHarness,
  testClient,
  TEST_EXECUTOR_URL,
  type Harness,
} from "./testing";

const bridge = executorBridge();
const inngest = testClient("flow", bridge);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Concurrency probes: how many step bodies run at once, overall and per key.
const active = new Map<string, number>();
const maxActive = new Map<string, number>();
const started = new Set<string>();
function enter(group: string) {
  const n = (active.get(group) ?? 0) + 1;
  active.set(group, n);
  maxActive.set(group, Math.max(maxActive.get(group) ?? 0, n));
}
const leave = (group: string) => active.set(group, (active.get(group) ?? 1) - 1);

const globalLimit = inngest.createFunction(
  { id: "global-limit", concurrency: 1, triggers: [{ event: "flow/global" }] },
  async ({ step }) => {
    await step.run("work", async () => {
      enter("global");
      await delay(30);
      leave("global");
    });
    return "ok";
  },
);

const keyedLimit = inngest.createFunction(
  {
    id: "keyed-limit",
    retries: 0,
    concurrency: { limit: 1, key: "event.data.user" },
    triggers: [{ event: "flow/keyed" }],
  },
  async ({ event, step }) => {
    const { user, pair } = event.data as { user: string; pair: number };
    await step.run("work", async () => {
      enter(`user:${user}`);
      started.add(user);
      // Wait until the other user's run has started too: only possible if different keys run
      // side by side. A limit shared by all keys would never let it start → this throws.
      const other = user === "a" ? "b" : "a";
      const deadline = Date.now() + 4_000;
      while (!started.has(other)) {
        if (Date.now() > deadline)
          throw new Error(`no run of user ${other} ran alongside ${user}${pair}`);
        await delay(5);
      }
      await delay(20);
      leave(`user:${user}`);
    });
    return "ok";
  },
);

let idemRuns = 0;
const idempotent = inngest.createFunction(
  { id: "idempotent", idempotency: "event.data.orderId", triggers: [{ event: "flow/order" }] },
  async () => {
    idemRuns++;
    return "charged";
  },
);

// Each of these uses an option the executor refuses.
const refused = [
  inngest.createFunction(
    {
      id: "rate-limited",
      rateLimit: { limit: 1, period: "1m" },
      triggers: [{ event: "flow/refused" }],
    },
    async () => "x",
  ),
  inngest.createFunction(
    {
      id: "throttled",
      throttle: { limit: 1, period: "1m" },
      triggers: [{ event: "flow/refused" }],
    },
    async () => "x",
  ),
  inngest.createFunction(
    { id: "debounced", debounce: { period: "5s" }, triggers: [{ event: "flow/refused" }] },
    async () => "x",
  ),
  inngest.createFunction(
    {
      id: "batched",
      batchEvents: { maxSize: 10, timeout: "5s" },
      triggers: [{ event: "flow/refused" }],
    },
    async () => "x",
  ),
  inngest.createFunction(
    { id: "prioritised", priority: { run: "event.data.p" }, triggers: [{ event: "flow/refused" }] },
    async () => "x",
  ),
  inngest.createFunction(
    { id: "singleton", singleton: { mode: "skip" }, triggers: [{ event: "flow/refused" }] },
    async () => "x",
  ),
  inngest.createFunction(
    { id: "jittered", triggers: [{ cron: "* * * * *", jitter: "10s" }] },
    async () => "x",
  ),
  inngest.createFunction(
    { id: "bad-expression", triggers: [{ event: "flow/refused", if: "event.data.x ==" }] },
    async () => "x",
  ),
];

const signalWaiter = inngest.createFunction(
  { id: "signal", triggers: [{ event: "flow/signal" }] },
  async ({ step }) => {
    await step.run("before", () => 1);
    await step.waitForSignal("sig", { signal: "go", timeout: "1h", onConflict: "fail" });
    return "unreachable";
  },
);

const fetcher = inngest.createFunction(
  { id: "fetcher", triggers: [{ event: "flow/fetch" }] },
  async ({ step }) => {
    const res = await step.fetch("http://127.0.0.1:9/never-called");
    return res.status;
  },
);

// timeouts.start: a run that cannot start in time (its only slot is held) is cancelled.
let releaseGate: () => void = () => {};
const gate = new Promise<void>((r) => (releaseGate = r));
let holderStarted = false;
const startLimited = inngest.createFunction(
  {
    id: "start-limited",
    concurrency: 1,
    timeouts: { start: "1m" },
    triggers: [{ event: "flow/start-limited" }],
  },
  async ({ event, step }) => {
    if ((event.data as { hold?: boolean }).hold) {
      await step.run("hold", async () => {
        holderStarted = true;
        await gate;
      });
    }
    return "ran";
  },
);

const invokesRefused = inngest.createFunction(
  { id: "invokes-refused", triggers: [{ event: "flow/invoke-refused" }] },
  async ({ step }) => {
    try {
      await step.invoke("call", { function: refused[0]!, data: {} });
      return "invoked";
    } catch (e) {
      return (e as Error).message;
    }
  },
);

const logLines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
function captureLogger(base: Record<string, unknown> = {}): Logger {
  const push = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void logLines.push({ level, msg, fields: { ...base, ...fields } });
  return {
    debug: push("debug"),
    info: push("info"),
    warn: push("warn"),
    error: push("error"),
    child: (f) => captureLogger({ ...base, ...f }),
  };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [
      globalLimit,
      keyedLimit,
      idempotent,
      ...refused,
      signalWaiter,
      fetcher,
      startLimited,
      invokesRefused,
    ],
    bridge,
    label: "flow",
    executor: { log: captureLogger() },
  });
});
afterAll(async () => h?.close());

describe("concurrency", () => {
  it("never runs more than `limit` calls of a function at once", async () => {
    const ids = await Promise.all([1, 2, 3, 4].map(() => h.send("flow/global")));
    const runs = await Promise.all(
      ids.map(async (id) => h.waitForExecution((await h.executionsFor(id))[0]!)),
    );
    expect(runs.every((r) => r.status === "completed")).toBe(true);
    expect(maxActive.get("global")).toBe(1);
  });

  it("applies the limit per key: different keys run side by side, one key runs alone", async () => {
    const ids = await Promise.all(
      [
        { user: "a", pair: 1 },
        { user: "a", pair: 2 },
        { user: "b", pair: 1 },
        { user: "b", pair: 2 },
      ].map((d) => h.send("flow/keyed", d)),
    );
    const runs = await Promise.all(
      ids.map(async (id) => h.waitForExecution((await h.executionsFor(id))[0]!, undefined, 20_000)),
    );
    expect(runs.map((r) => [r.status, r.error?.message])).toEqual(
      Array(4).fill(["completed", undefined]),
    );
    expect(maxActive.get("user:a")).toBe(1);
    expect(maxActive.get("user:b")).toBe(1);
  });
});

describe("timeouts.start", () => {
  it("cancels a run that could not start in time", async () => {
    const holderEvent = await h.send("flow/start-limited", { hold: true });
    await h.until(() => holderStarted, "the holder to take the only slot");
    const waiterEvent = await h.send("flow/start-limited", {});
    const [waiterRun] = await h.executionsFor(waiterEvent);
    expect((await h.executor.admin.getExecution(waiterRun!))!.status).toBe("queued");
    h.clock.advance(60_000 + 1_000);
    const cancelled = await h.waitForExecution(waiterRun!);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.error).toMatchObject({ reason: "timeouts.start elapsed" });
    releaseGate();
    const [holderRun] = await h.executionsFor(holderEvent);
    expect((await h.waitForExecution(holderRun!)).output).toBe("ran");
  });
});

describe("idempotency", () => {
  it("starts one run per key within 24 h", async () => {
    const a = await h.send("flow/order", { orderId: "o-1" });
    const b = await h.send("flow/order", { orderId: "o-1" });
    const c = await h.send("flow/order", { orderId: "o-2" });
    await h.waitForExecution((await h.executionsFor(a))[0]!);
    await h.waitForExecution((await h.executionsFor(c))[0]!);
    expect(await h.executor.admin.listExecutions({ eventId: b })).toEqual([]);
    expect(idemRuns).toBe(2);

    h.clock.advance(24 * 3_600_000 + 1);
    const d = await h.send("flow/order", { orderId: "o-1" });
    await h.waitForExecution((await h.executionsFor(d))[0]!);
    expect(idemRuns).toBe(3);
  });
});

describe("unsupported features are refused loudly", () => {
  it("marks functions with unsupported options invalid, lists why, and logs it", async () => {
    const fns = await h.executor.admin.listFunctions();
    const byId = Object.fromEntries(fns.map((f) => [f.id, f]));
    const expectations: Record<string, RegExp> = {
      "flow-rate-limited": /rateLimit is not supported/,
      "flow-throttled": /throttle is not supported/,
      "flow-debounced": /debounce is not supported/,
      "flow-batched": /batchEvents \(event batching\) is not supported/,
      "flow-prioritised": /priority is not supported/,
      "flow-singleton": /singleton is not supported/,
      "flow-jittered": /jitter \(cron jitter\) is not supported/,
      "flow-bad-expression": /triggers\[0\]\.expression: invalid expression/,
    };
    for (const [id, re] of Object.entries(expectations)) {
      expect(byId[id]?.status, id).toBe("invalid");
      expect(byId[id]!.errors.join("\n"), id).toMatch(re);
      expect(
        logLines.some((l) => l.level === "error" && l.fields?.functionId === id),
        `log for ${id}`,
      ).toBe(true);
    }
    expect(byId["flow-global-limit"]?.status).toBe("active");

    // Over HTTP too.
    const res = await bridge.fetch(`${TEST_EXECUTOR_URL}/admin/functions`);
    const body = (await res.json()) as { functions: Array<{ id: string; status: string }> };
    expect(body.functions.find((f) => f.id === "flow-throttled")?.status).toBe("invalid");

    // An event for refused functions starts nothing.
    const eventId = await h.send("flow/refused", { x: 1 });
    expect(await h.executor.admin.listExecutions({ eventId })).toEqual([]);
  });

  it("fails a run that uses an op the executor does not implement, naming it", async () => {
    const run = await h.trigger("flow/signal");
    expect(run.status).toBe("failed");
    expect(run.error?.message).toMatch(
      /step "sig" uses step\.waitForSignal\(\) \(op WaitForSignal\), which the embedded executor does not support/,
    );
    expect(run.steps.find((s) => s.name === "before")?.status).toBe("completed");
  });

  it("fails a run that uses step.fetch (Gateway), naming it", async () => {
    const run = await h.trigger("flow/fetch");
    expect(run.status).toBe("failed");
    expect(run.error?.message).toMatch(/uses step\.fetch\(\) \(op Gateway\)/);
  });

  it("refuses to invoke an invalid function with a clear step error", async () => {
    const run = await h.trigger("flow/invoke-refused");
    expect(run.output).toMatch(
      /could not invoke function "flow-rate-limited": it is invalid: rateLimit is not supported/,
    );
  });
});
