/**
 * Parallel steps (protocol §2.8): every sibling runs exactly once, the one discovery after the
 * siblings sees them all, `Promise.race` resolves by completion order, and race mode
 * (`group.parallel`) moves on after the first result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";

const bridge = executorBridge();
const inngest = testClient("par", bridge);
const counts = new Map<string, number>();
const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const all = inngest.createFunction({ id: "all", triggers: [{ event: "par/all" }] }, async ({ event, step }) => {
  const tag = (event.data as { tag: string }).tag;
  const results = await Promise.all(
    [30, 5, 15, 0, 20].map((ms, i) =>
      step.run(`p${i}`, async () => {
        count(`${tag}.p${i}`);
        await delay(ms);
        return i * 10;
      }),
    ),
  );
  const after = await step.run("after", () => {
    count(`${tag}.after`);
    return results.reduce((a, b) => a + b, 0);
  });
  return { results, after };
});

// Plain Promise.race: the executor discovers once both settled; the SDK replays the memo in
// completion order, so the step that finished first wins.
const race = inngest.createFunction({ id: "race", triggers: [{ event: "par/race" }] }, async ({ event, step }) => {
  const tag = (event.data as { tag: string }).tag;
  const winner = await Promise.race([
    step.run("slow", async () => {
      count(`${tag}.slow`);
      await delay(150);
      return "slow";
    }),
    step.run("fast", () => {
      count(`${tag}.fast`);
      return "fast";
    }),
  ]);
  await step.run("after", () => count(`${tag}.after`));
  return winner;
});

// Race mode: the run moves on after the first result while the loser is still pending.
const raceMode = inngest.createFunction({ id: "race-mode", triggers: [{ event: "par/race-mode" }] }, async ({ event, step, group }) => {
  const tag = (event.data as { tag: string }).tag;
  const winner = await group.parallel({ mode: "race" }, () =>
    Promise.race([
      step.run("fast", () => {
        count(`${tag}.fast`);
        return "fast";
      }),
      step.waitForEvent("approval", { event: "par/approve", timeout: "1h", if: `async.data.tag == "${tag}"` }),
    ]),
  );
  const after = await step.run("after", () => {
    count(`${tag}.after`);
    return "after-ran";
  });
  return { winner, after };
});

// Nested fan-out with a sleep among the siblings.
const mixed = inngest.createFunction({ id: "mixed", triggers: [{ event: "par/mixed" }] }, async ({ step }) => {
  const [a, , b] = await Promise.all([step.run("a", () => "A"), step.sleep("nap", "10m"), step.run("b", () => "B")]);
  return `${a}${b}`;
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ client: inngest, functions: [all, race, raceMode, mixed], bridge, label: "parallel" });
});
afterAll(async () => h?.close());

describe("parallel steps", () => {
  it("Promise.all: each sibling runs once, then one discovery continues", async () => {
    const run = await h.trigger("par/all", { tag: "all1" });
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ results: [0, 10, 20, 30, 40], after: 100 });
    for (let i = 0; i < 5; i++) expect(counts.get(`all1.p${i}`)).toBe(1);
    expect(counts.get("all1.after")).toBe(1);
    // Five planned calls, then the discovery that ran "after" inline: nothing ran twice.
    expect(run.history.filter((e) => e.type === "step.planned")).toHaveLength(5);
    expect(run.history.filter((e) => e.type === "step.completed")).toHaveLength(6);
  });

  it("Promise.all under concurrent runs stays exactly-once per step", async () => {
    const tags = ["c1", "c2", "c3", "c4"];
    const runs = await Promise.all(tags.map((tag) => h.trigger("par/all", { tag })));
    for (const [i, run] of runs.entries()) {
      expect(run.status).toBe("completed");
      for (let p = 0; p < 5; p++) expect(counts.get(`${tags[i]}.p${p}`)).toBe(1);
      expect(counts.get(`${tags[i]}.after`)).toBe(1);
    }
  });

  it("Promise.race resolves with the step that completed first; each step runs once", async () => {
    const run = await h.trigger("par/race", { tag: "r1" });
    expect(run.status).toBe("completed");
    expect(run.output).toBe("fast");
    expect(counts.get("r1.fast")).toBe(1);
    expect(counts.get("r1.slow")).toBe(1);
    expect(counts.get("r1.after")).toBe(1);
    // Memo order is completion order (the stack the SDK replays).
    expect(run.steps.slice(0, 2).map((s) => s.name)).toEqual(["fast", "slow"]);
  });

  it("race mode continues after the first result while the loser waits", async () => {
    const eventId = await h.send("par/race-mode", { tag: "rm1" });
    const [runId] = await h.runsFor(eventId);
    const waiting = await h.until(async () => {
      const r = await h.executor.admin.getRun(runId!);
      return r && counts.get("rm1.after") === 1 && r.steps.some((s) => s.name === "approval" && s.status === "waiting") ? r : undefined;
    }, "the run to pass the race while the wait is pending");
    expect(waiting.status).toBe("running");
    expect(counts.get("rm1.fast")).toBe(1);
    // The run finishes only once the losing wait settles (the SDK reports it until then).
    await h.send("par/approve", { tag: "rm1" });
    const run = await h.waitForRun(runId!);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ winner: "fast", after: "after-ran" });
    expect(counts.get("rm1.after")).toBe(1);
    expect(counts.get("rm1.fast")).toBe(1);
  });

  it("a sleep among parallel siblings holds the next discovery until it ends", async () => {
    const eventId = await h.send("par/mixed");
    const [runId] = await h.runsFor(eventId);
    await h.until(async () => {
      const r = await h.executor.admin.getRun(runId!);
      return r?.steps.filter((s) => s.status === "completed").length === 2 && r.steps.some((s) => s.status === "sleeping");
    }, "both steps done and the sleep pending");
    h.clock.advance(10 * 60_000);
    const run = await h.waitForRun(runId!);
    expect(run.output).toBe("AB");
    expect(run.steps.find((s) => s.name === "nap")?.output).toBeNull();
  });
});
