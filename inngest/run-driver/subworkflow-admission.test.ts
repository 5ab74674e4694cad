/**
 * Sub-workflow recursion and child admission through the real engine (PGlite, and Postgres in the
 * postgres project): recursion stops at MAX_SUBWORKFLOW_DEPTH naming the chain; children are
 * admitted under their workflow's maxConcurrentRuns (waiting queued behind other trees, never
 * behind their own), counted in the monthly quota, and never wait for a workspace slot.
 */
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quotaUsage, runs, workspaces } from "@/db/schema";
import { MAX_SUBWORKFLOW_DEPTH } from "@/lib/workflow/run-limits";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("subworkflow-admission");
});
afterAll(async () => {
  await e?.close();
});

const tree = (rootRunId: string) =>
  e.db.db
    .select()
    .from(runs)
    .where(eq(runs.rootRunId, rootRunId))
    .orderBy(asc(runs.createdAt), asc(runs.id));

/** A workflow that calls `callee` (a slug) with `input`, optionally only `when` n > 0. */
const caller = (name: string, callee: string, extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name,
  inputs: { n: { type: "number", default: 0 } },
  steps: [
    {
      id: "call",
      type: "subworkflow",
      config: { workflow: callee, input: { n: "{{ input.n }}" } },
      ...extra,
    },
  ],
});

describe("sub-workflow recursion", () => {
  it(`stops a → b → a → … at depth ${MAX_SUBWORKFLOW_DEPTH}, naming the chain`, async () => {
    const a = await e.workflow(caller("ping", "pong"));
    await e.workflow(caller("pong", "ping"));
    const root = await e.waitFor(await e.start(a), ["completed", "failed"]);
    expect(root.status).toBe("failed");
    const runsOfTree = await tree(root.id);
    // The root and 10 nested children; the 11th is refused.
    expect(runsOfTree).toHaveLength(MAX_SUBWORKFLOW_DEPTH + 1);
    const chain = Array.from({ length: MAX_SUBWORKFLOW_DEPTH + 2 }, (_, i) =>
      i % 2 ? "pong" : "ping",
    ).join(" → ");
    const deepest = runsOfTree.at(-1)!;
    const deepestError = (deepest.error as { message: string }).message;
    expect(deepestError).toContain(
      `sub-workflow depth ${MAX_SUBWORKFLOW_DEPTH} exceeded: ${chain}`,
    );
    // Every ancestor fails with it (each parent's step fails with its child).
    expect((root.error as { message: string }).message).toContain(
      `sub-workflow depth ${MAX_SUBWORKFLOW_DEPTH} exceeded: ping → pong → ping`,
    );
    expect(runsOfTree.every((r) => r.status === "failed")).toBe(true);
  });

  it("direct recursion a → a stops the same way", async () => {
    const self = await e.workflow(caller("selfie", "selfie"));
    const root = await e.waitFor(await e.start(self), ["completed", "failed"]);
    expect(root.status).toBe("failed");
    expect((root.error as { message: string }).message).toContain(
      `sub-workflow depth ${MAX_SUBWORKFLOW_DEPTH} exceeded: selfie → selfie → selfie`,
    );
    expect(await tree(root.id)).toHaveLength(MAX_SUBWORKFLOW_DEPTH + 1);
  });

  it("bounded recursion under maxConcurrentRuns 1 never queues behind its own tree", async () => {
    // countdown(n): dec = n - 1 (templates do no arithmetic); n > 0 → countdown(dec). Every
    // level is the same workflow, limit 1: the tree holds that slot and must not wait for itself.
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "countdown",
      constraints: { maxConcurrentRuns: 1 },
      inputs: { n: { type: "number", required: true } },
      steps: [
        {
          id: "dec",
          type: "code",
          config: {
            source: "export default function (i) { return i.n - 1 }",
            input: { n: "{{ input.n }}" },
          },
        },
        {
          id: "call",
          type: "subworkflow",
          when: { ref: "input.n", gt: 0 },
          config: { workflow: "countdown", input: { n: "{{ steps.dec.output.data }}" } },
        },
      ],
    });
    const root = await e.waitFor(await e.start(wf, { n: 3 }), ["completed", "failed"], {
      advanceMs: 1_000,
    });
    expect(root.status, JSON.stringify(root.error)).toBe("completed");
    const all = await tree(root.id);
    expect(all.map((r) => [r.status, (r.input as { n: number }).n])).toEqual([
      ["completed", 3],
      ["completed", 2],
      ["completed", 1],
      ["completed", 0],
    ]);
    // Not one of them waited in the queue.
    for (const r of all) expect(await e.events(r.id)).toContain("run.queued");
    for (const r of all.slice(1)) {
      const events = await e.events(r.id);
      expect(events).not.toContain("run.admitted");
    }
  });
});

describe("child runs go through admission", () => {
  it("a child waits queued while its workflow's only slot is held by another run, then runs", async () => {
    // slow: with hold = true it waits 10 minutes (holding maxConcurrentRuns 1), else it returns at once.
    const slow = await e.workflow({
      schemaVersion: 1,
      name: "slow",
      constraints: { maxConcurrentRuns: 1 },
      inputs: { hold: { type: "boolean", default: false } },
      steps: [
        { id: "done", type: "transform", config: { value: "slow done" } },
        {
          id: "nap",
          type: "delay",
          when: { ref: "input.hold", eq: true },
          config: { duration: "10m" },
        },
      ],
      output: "{{ steps.done.output.data }}",
    });
    const holder = await e.start(slow, { hold: true });
    await e.waitFor(holder, ["waiting"]);
    const parent = await e.workflow({
      schemaVersion: 1,
      name: "slow caller",
      steps: [{ id: "call", type: "subworkflow", config: { workflow: "slow", input: {} } }],
      output: "{{ steps.call.output.data }}",
    });
    const p = await e.start(parent);
    const child = await e.h.until(async () => {
      const [c] = await e.db.db.select().from(runs).where(eq(runs.parentRunId, p));
      return c;
    }, "the child run");
    // The child is queued behind the holder (before: children skipped admission and ran at once).
    expect(child.status).toBe("queued");
    expect((await e.waitFor(p, ["waiting", "running"])).status).not.toBe("completed");
    // A new top-level run of slow queues too: the queued child is first in line.
    const later = await e.start(slow, { hold: false });
    expect((await e.waitFor(later, ["queued"])).status).toBe("queued");
    // The holder ends → admission starts the child (FIFO) → the parent sees its output.
    e.h.clock.advance(600_000);
    await e.waitFor(holder, ["completed"]);
    const done = await e.waitFor(p, ["completed", "failed"], { advanceMs: 5_000 });
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    expect(done.output).toBe("slow done");
    const events = await e.events(child.id);
    expect(events.slice(0, 2)).toEqual(["run.queued", "run.admitted"]);
    expect((await e.waitFor(later, ["completed"])).status).toBe("completed");
  });

  it("children count in the monthly runs quota and never wait for a workspace slot", async () => {
    const usage = async () => {
      const [row] = await e.db.db
        .select({ used: quotaUsage.used })
        .from(quotaUsage)
        .where(and(eq(quotaUsage.workspaceId, e.ws.workspaceId), eq(quotaUsage.metric, "runs")));
      return Number(row?.used ?? 0);
    };
    const leaf = await e.workflow({
      schemaVersion: 1,
      name: "leaf",
      steps: [{ id: "x", type: "transform", config: { value: 42 } }],
      output: "{{ steps.x.output.data }}",
    });
    const [ws] = await e.db.db
      .select({ settings: workspaces.settings })
      .from(workspaces)
      .where(eq(workspaces.id, e.ws.workspaceId));
    // One active run for the whole workspace: the parent holds it, its child still runs.
    await e.db.db
      .update(workspaces)
      .set({ settings: { ...(ws!.settings as object), maxActiveRunsPerWorkspace: 1 } })
      .where(eq(workspaces.id, e.ws.workspaceId));
    try {
      const parent = await e.workflow({
        schemaVersion: 1,
        name: "leaf caller",
        steps: [{ id: "call", type: "subworkflow", config: { workflow: leaf, input: {} } }],
        output: "{{ steps.call.output.data }}",
      });
      const before = await usage();
      const run = await e.waitFor(await e.start(parent), ["completed", "failed"]);
      expect(run.status, JSON.stringify(run.error)).toBe("completed");
      expect(run.output).toBe(42);
      // The parent and its child: two runs (before: children were not counted).
      expect((await usage()) - before).toBe(2);
    } finally {
      await e.db.db
        .update(workspaces)
        .set({ settings: ws!.settings })
        .where(eq(workspaces.id, e.ws.workspaceId));
    }
  });
});
