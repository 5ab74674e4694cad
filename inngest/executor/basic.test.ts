/**
 * Steps, memo shapes, triggers and the event API, through the real SDK and a real database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncApp } from "./registry";
import {
  executorBridge,
  startHarness,
  testClient,
  TEST_APP_URL,
  TEST_EXECUTOR_URL,
  type Harness,
} from "./testing";

const bridge = executorBridge();
const inngest = testClient("basic", bridge);
const calls: Record<string, number> = {};
const bump = (k: string) => (calls[k] = (calls[k] ?? 0) + 1);

const single = inngest.createFunction(
  { id: "single", triggers: [{ event: "basic/single" }] },
  async ({ event, step }) => {
    const a = await step.run("a", () => {
      bump("single.a");
      return { n: (event.data as { n: number }).n + 1 };
    });
    const b = await step.run("b", () => a.n * 2);
    return { a, b };
  },
);

// Values that look like memo wrappers must survive the round trip unchanged.
const shapes = inngest.createFunction(
  { id: "shapes", triggers: [{ event: "basic/shapes" }] },
  async ({ step }) => {
    const undef = await step.run("undef", () => undefined);
    const wrapped = await step.run("wrapped", () => ({ data: 1 }));
    const err = await step.run("error-like", () => ({ error: "not an error" }));
    const text = await step.run("text", () => "hello");
    const results: number[] = [];
    for (let i = 0; i < 3; i++) results.push(await step.run("loop", () => i));
    return { undef: undef ?? "was-null", wrapped, err, text, results };
  },
);

const sender = inngest.createFunction(
  { id: "sender", triggers: [{ event: "basic/send" }] },
  async ({ step }) => {
    const sent = await step.sendEvent("fan-out", [
      { name: "basic/received", data: { k: 1 } },
      { name: "basic/received", data: { k: 2 } },
    ]);
    return sent;
  },
);
const receiver = inngest.createFunction(
  { id: "receiver", triggers: [{ event: "basic/received" }] },
  async ({ event }) => {
    bump(`received.${(event.data as { k: number }).k}`);
    return event.data;
  },
);

const wildcard = inngest.createFunction(
  { id: "wildcard", triggers: [{ event: "basic/wild.*" }] },
  async ({ event }) => event.name,
);

const expression = inngest.createFunction(
  {
    id: "expression",
    triggers: [{ event: "basic/expr", if: "event.data.ok == true && event.data.n > 2" }],
  },
  async ({ event }) => event.data,
);

const dedup = inngest.createFunction(
  { id: "dedup", triggers: [{ event: "basic/dedup" }] },
  async () => {
    bump("dedup");
    return "ran";
  },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [single, shapes, sender, receiver, wildcard, expression, dedup],
    bridge,
    label: "basic",
  });
});
afterAll(async () => h?.close());

describe("steps", () => {
  it("runs steps one call each and completes with the return value", async () => {
    const run = await h.trigger("basic/single", { n: 1 });
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ a: { n: 2 }, b: 4 });
    expect(run.steps.map((s) => [s.name, s.status, s.output, s.attempts])).toEqual([
      ["a", "completed", { data: { n: 2 } }, 1],
      ["b", "completed", { data: 4 }, 1],
    ]);
    expect(calls["single.a"]).toBe(1);
    expect(run.startedAt).not.toBeNull();
    expect(run.endedAt).not.toBeNull();
  });

  it("wraps every step.run result as {data}, so wrapper-like values and repeated ids round-trip", async () => {
    const run = await h.trigger("basic/shapes");
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({
      undef: "was-null",
      wrapped: { data: 1 },
      err: { error: "not an error" },
      text: "hello",
      results: [0, 1, 2],
    });
    const byName = Object.fromEntries(
      run.steps.filter((s) => s.name !== "loop").map((s) => [s.name, s.output]),
    );
    expect(byName).toEqual({
      undef: { data: null },
      wrapped: { data: { data: 1 } },
      "error-like": { data: { error: "not an error" } },
      text: { data: "hello" },
    });
    // Repeated ids get distinct hashed ids (`loop`, `loop:1`, `loop:2`).
    const loops = run.steps.filter((s) => s.name === "loop");
    expect(loops).toHaveLength(3);
    expect(new Set(loops.map((s) => s.id)).size).toBe(3);
  });

  it("step.sendEvent goes through the event API and starts the triggered runs", async () => {
    const run = await h.trigger("basic/send");
    expect(run.status).toBe("completed");
    const ids = (run.output as { ids: string[] }).ids;
    expect(ids).toHaveLength(2);
    expect(run.steps[0]!.output).toEqual({ data: { ids } });
    for (const id of ids) {
      const [child] = await h.executionsFor(id);
      const done = await h.waitForExecution(child!);
      expect(done.functionId).toBe("basic-receiver");
      expect(done.status).toBe("completed");
    }
    expect(calls["received.1"]).toBe(1);
    expect(calls["received.2"]).toBe(1);
  });
});

describe("triggers", () => {
  it("matches wildcard event names", async () => {
    const run = await h.trigger("basic/wild.anything");
    expect(run.functionId).toBe("basic-wildcard");
    expect(run.output).toBe("basic/wild.anything");
    const other = await h.send("basic/wildx");
    expect(await h.executor.admin.listExecutions({ eventId: other })).toEqual([]);
  });

  it("filters with the trigger expression; evaluation errors are no match", async () => {
    const yes = await h.send("basic/expr", { ok: true, n: 3 });
    const no = await h.send("basic/expr", { ok: false, n: 3 });
    const missing = await h.send("basic/expr", { n: 5 }); // no `ok` key → error → no match
    const [run] = await h.executionsFor(yes);
    expect((await h.waitForExecution(run!)).output).toEqual({ ok: true, n: 3 });
    expect(await h.executor.admin.listExecutions({ eventId: no })).toEqual([]);
    expect(await h.executor.admin.listExecutions({ eventId: missing })).toEqual([]);
  });
});

describe("event API", () => {
  it("answers {ids, status: 200} for single events and batches, with ULIDs", async () => {
    const one = await bridge.fetch(`${TEST_EXECUTOR_URL}/e/any-key`, {
      method: "POST",
      body: JSON.stringify({ name: "basic/nothing", data: {} }),
    });
    expect(one.status).toBe(200);
    const body = (await one.json()) as { ids: string[]; status: number };
    expect(body.status).toBe(200);
    expect(body.ids).toHaveLength(1);
    expect(body.ids[0]).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const batch = await h.client.send([
      { name: "basic/wild.1", data: {} },
      { name: "basic/wild.2", data: {} },
    ]);
    expect(batch.ids).toHaveLength(2);
    for (const id of batch.ids) expect((await h.executionsFor(id)).length).toBe(1);
  });

  it("rejects malformed events with 400 and a message", async () => {
    const res = await bridge.fetch(`${TEST_EXECUTOR_URL}/e/k`, {
      method: "POST",
      body: JSON.stringify([{ data: {} }]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, error: expect.stringContaining("name") });
    const notJson = await bridge.fetch(`${TEST_EXECUTOR_URL}/e/k`, { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("derives ids from x-inngest-event-id-seed, so a retried send is stored and routed once", async () => {
    const seed = `${Date.now()},${Buffer.from("0123456789").toString("base64")}`;
    const post = () =>
      bridge.fetch(`${TEST_EXECUTOR_URL}/e/k`, {
        method: "POST",
        headers: { "x-inngest-event-id-seed": seed },
        body: JSON.stringify([
          { name: "basic/dedup", data: {} },
          { name: "basic/dedup", data: {} },
        ]),
      });
    const before = calls.dedup ?? 0;
    const first = (await (await post()).json()) as { ids: string[] };
    const second = (await (await post()).json()) as { ids: string[] };
    expect(second.ids).toEqual(first.ids);
    expect(new Set(first.ids).size).toBe(2);
    for (const id of first.ids) expect(await h.executionsFor(id)).toHaveLength(1);
    const runs = await h.executor.admin.listExecutions({ functionId: "basic-dedup" });
    await Promise.all(runs.map((r) => h.waitForExecution(r.id)));
    expect((calls.dedup ?? 0) - before).toBe(2);
  });

  it("ignores a user-supplied event id seen within 24 h, and accepts it again after", async () => {
    const first = await h.send("basic/single", { n: 10 }, { id: "order-42" });
    const again = await h.send("basic/single", { n: 10 }, { id: "order-42" });
    expect(again).not.toBe(first);
    expect(await h.executionsFor(first)).toHaveLength(1);
    expect(await h.executor.admin.listExecutions({ eventId: again })).toEqual([]);
    const stored = await h.executor.admin.listEvents({ name: "basic/single" });
    expect(stored.find((e) => e.id === again)?.duplicateOf).toBe(first);

    h.clock.advance(24 * 3_600_000 + 1_000);
    const later = await h.send("basic/single", { n: 10 }, { id: "order-42" });
    const [run] = await h.executionsFor(later);
    expect((await h.waitForExecution(run!)).status).toBe("completed");
    // The function receives the sender's id as event.id.
    expect((await h.executor.admin.getExecution(run!))!.event.id).toBe("order-42");
  });
});

describe("sync", () => {
  it("re-syncs on demand; a periodic re-sync of an unchanged app writes nothing", async () => {
    const before = await h.executor.admin.listFunctions();
    await syncApp(h.executor.ctx, TEST_APP_URL, { onlyIfChanged: true });
    await syncApp(h.executor.ctx, TEST_APP_URL, { onlyIfChanged: true });
    const unchanged = await h.executor.admin.listFunctions();
    expect(unchanged.map((f) => f.updatedAt)).toEqual(before.map((f) => f.updatedAt));
    const res = await bridge.fetch(`${TEST_EXECUTOR_URL}/admin/sync`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { apps: Array<{ appId: string }> }).apps[0]!.appId).toBe("basic");
    const after = await h.executor.admin.listFunctions();
    expect(after.every((f, i) => f.updatedAt > before[i]!.updatedAt)).toBe(true);
  });
});
