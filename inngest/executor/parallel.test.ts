/**
 * Parallel steps (protocol §2.8): every sibling runs exactly once, the one discovery after the
 * siblings sees them all, `Promise.race` resolves by completion order, and race mode
 * (`group.parallel`) moves on after the first result. Also what goes over the wire (§2–§3):
 * classic async mode (never `ctx.fn_id`), `max_attempts`, the completion-ordered stack,
 * `disable_immediate_execution` while race siblings are pending, and the in-band sync request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "../../env";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";
import type { TransportRequest } from "./transport";

const bridge = executorBridge();
const inngest = testClient("par", bridge);
const counts = new Map<string, number>();
const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Body = {
  url?: string;
  version?: number;
  steps?: Record<string, unknown>;
  ctx?: Record<string, unknown> & { run_id: string; stack: { stack: string[] } };
};
const calls: Array<{ req: TransportRequest; body: Body; status: number }> = [];

const all = inngest.createFunction(
  { id: "all", triggers: [{ event: "par/all" }] },
  async ({ event, step }) => {
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
  },
);

// Plain Promise.race: the executor discovers once both settled; the SDK replays the memo in
// completion order, so the step that finished first wins.
const race = inngest.createFunction(
  { id: "race", triggers: [{ event: "par/race" }] },
  async ({ event, step }) => {
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
  },
);

// Race mode: the run moves on after the first result while the loser is still pending.
const raceMode = inngest.createFunction(
  { id: "race-mode", triggers: [{ event: "par/race-mode" }] },
  async ({ event, step, group }) => {
    const tag = (event.data as { tag: string }).tag;
    const winner = await group.parallel({ mode: "race" }, () =>
      Promise.race([
        step.run("fast", () => {
          count(`${tag}.fast`);
          return "fast";
        }),
        step.waitForEvent("approval", {
          event: "par/approve",
          timeout: "1h",
          if: `async.data.tag == "${tag}"`,
        }),
      ]),
    );
    const after = await step.run("after", () => {
      count(`${tag}.after`);
      return "after-ran";
    });
    return { winner, after };
  },
);

// Nested fan-out with a sleep among the siblings.
const mixed = inngest.createFunction(
  { id: "mixed", triggers: [{ event: "par/mixed" }] },
  async ({ step }) => {
    const [a, , b] = await Promise.all([
      step.run("a", () => "A"),
      step.sleep("nap", "10m"),
      step.run("b", () => "B"),
    ]);
    return `${a}${b}`;
  },
);

const ordered = inngest.createFunction(
  { id: "ordered", retries: 2, triggers: [{ event: "p/ordered" }] },
  async ({ step }) => {
    const [slow, fast] = await Promise.all([
      step.run("slow", async () => {
        await new Promise((r) => setTimeout(r, 100));
        return "slow";
      }),
      step.run("fast", () => "fast"),
    ]);
    return step.run("last", () => `${fast}-${slow}`);
  },
);

const wireRace = inngest.createFunction(
  { id: "wire-race", triggers: [{ event: "p/race" }] },
  async ({ step, group }) => {
    const winner = await group.parallel({ mode: "race" }, () =>
      Promise.race([
        step.run("quick", () => "quick"),
        step.run("slowpoke", async () => {
          await new Promise((r) => setTimeout(r, 150));
          return "slowpoke";
        }),
      ]),
    );
    return winner;
  },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [all, race, raceMode, mixed, ordered, wireRace],
    bridge,
    label: "parallel",
    onCall: (req, res) =>
      calls.push({ req, body: (req.body ? JSON.parse(req.body) : {}) as Body, status: res.status }),
  });
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
    const [runId] = await h.executionsFor(eventId);
    const waiting = await h.until(async () => {
      const r = await h.executor.admin.getExecution(runId!);
      return r &&
        counts.get("rm1.after") === 1 &&
        r.steps.some((s) => s.name === "approval" && s.status === "waiting")
        ? r
        : undefined;
    }, "the run to pass the race while the wait is pending");
    expect(waiting.status).toBe("running");
    expect(counts.get("rm1.fast")).toBe(1);
    // The run finishes only once the losing wait settles (the SDK reports it until then).
    await h.send("par/approve", { tag: "rm1" });
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ winner: "fast", after: "after-ran" });
    expect(counts.get("rm1.after")).toBe(1);
    expect(counts.get("rm1.fast")).toBe(1);
  });

  it("a sleep among parallel siblings holds the next discovery until it ends", async () => {
    const eventId = await h.send("par/mixed");
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => {
      const r = await h.executor.admin.getExecution(runId!);
      return (
        r?.steps.filter((s) => s.status === "completed").length === 2 &&
        r.steps.some((s) => s.status === "sleeping")
      );
    }, "both steps done and the sleep pending");
    h.clock.advance(10 * 60_000);
    const run = await h.waitForExecution(runId!);
    expect(run.output).toBe("AB");
    expect(run.steps.find((s) => s.name === "nap")?.output).toBeNull();
  });
});

const sha1 = async (s: string) =>
  (await import("node:crypto")).createHash("sha1").update(s).digest("hex");

describe("wire protocol", () => {
  it("syncs in-band with a PUT carrying the serve URL", () => {
    const sync = calls.find((c) => c.req.method === "PUT")!;
    expect(sync.req.headers["x-inngest-sync-kind"]).toBe("in_band");
    expect(sync.body).toEqual({ url: "http://app.test/api/inngest" });
    expect(sync.status).toBe(200);
  });

  it("sends fn_id/qi_id only with checkpointing, max_attempts, version 2, stack in completion order", async () => {
    const run = await h.trigger("p/ordered");
    expect(run.output).toBe("fast-slow");
    const mine = calls.filter((c) => c.req.method === "POST" && c.body.ctx?.run_id === run.id);
    expect(mine.length).toBeGreaterThanOrEqual(4);
    for (const c of mine) {
      if (env.SLUICE_EXECUTOR_CHECKPOINTING) {
        expect(c.body.ctx!.fn_id).toBe("par-ordered");
        expect(c.body.ctx!.qi_id).toMatch(/^\d+\.[\w-]+$/);
      } else {
        expect(c.body.ctx).not.toHaveProperty("fn_id");
        expect(c.body.ctx).not.toHaveProperty("qi_id");
      }
      expect(c.body.ctx!.max_attempts).toBe(3);
      expect(c.body.version).toBe(2);
      expect(c.req.url).toContain("fnId=par-ordered");
      expect(c.req.headers).not.toHaveProperty("x-inngest-signature"); // dev mode
    }
    // The discovery after both siblings lists them in the order they finished: fast, then slow.
    const last = mine.at(-1)!;
    expect(last.body.ctx!.stack.stack.slice(0, 2)).toEqual([
      await sha1("fast"),
      await sha1("slow"),
    ]);
    expect(Object.keys(last.body.steps!)).toEqual(
      expect.arrayContaining([await sha1("fast"), await sha1("slow")]),
    );
    // Each planned sibling got its own targeted call.
    const targeted = mine
      .filter((c) => !c.req.url.endsWith("stepId=step"))
      .map((c) => new URL(c.req.url).searchParams.get("stepId"));
    expect(targeted.sort()).toEqual([await sha1("fast"), await sha1("slow")].sort());
  });

  it("sets disable_immediate_execution on a discovery made while a race sibling is pending", async () => {
    const run = await h.trigger("p/race");
    expect(run.output).toBe("quick");
    const discoveries = calls.filter(
      (c) => c.body.ctx?.run_id === run.id && c.req.url.endsWith("stepId=step"),
    );
    const withPending = discoveries.filter((c) => c.body.ctx!.stack.stack.length === 1);
    expect(withPending.length).toBeGreaterThan(0);
    for (const d of withPending) expect(d.body.ctx!.disable_immediate_execution).toBe(true);
    expect(discoveries[0]!.body.ctx!.disable_immediate_execution).toBe(false);
    expect(run.steps.filter((s) => s.status === "completed").map((s) => s.name)).toEqual([
      "quick",
      "slowpoke",
    ]);
  });
});
