/**
 * Loop variables through the real engine (PGlite, and Postgres in the postgres project): the
 * accumulator (`state` / `stateFrom` → `loop.state`), batches (`batchSize` → `loop.batch`), the
 * whole list (`loop.items`), and that a 10,000-item list is never copied into iteration records.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEvents, runSteps } from "@/db/schema";
import { resolveLoopStart } from "@/server/services/step-execution/loop-bodies";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("loop-state");
});
afterAll(async () => {
  await e?.close();
});

describe("a loop's start (resolveLoopStart)", () => {
  const body = { steps: [{ id: "add", type: "transform", config: { value: 1 } }] };
  it("resolves the initial state once; a template reaching nothing starts it as null", () => {
    const ctx = { input: { start: { total: 10 } } };
    expect(
      resolveLoopStart({ items: [1], state: "{{ input.start }}", stateFrom: "add", body }, ctx),
    ).toMatchObject({ state: { initial: { total: 10 }, from: "add" }, concurrency: 1 });
    expect(
      resolveLoopStart({ items: [1], state: "{{ input.nope }}", stateFrom: "add", body }, ctx),
    ).toMatchObject({ state: { initial: null, from: "add" } });
    expect(resolveLoopStart({ items: [1, 2], batchSize: 5, body }, ctx)).toMatchObject({
      batchSize: 5,
      items: [1, 2],
    });
    expect(resolveLoopStart({ items: [1], body }, ctx)).not.toHaveProperty("state");
  });
});

describe("loop variables", () => {
  it("sums order totals with loop.state, one iteration at a time", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Sum orders",
      inputs: { orders: { type: "array", required: true } },
      steps: [
        {
          id: "sum",
          type: "loop",
          config: {
            items: "{{ input.orders }}",
            state: { total: 0, seen: 0 },
            stateFrom: "add",
            body: {
              steps: [
                {
                  id: "add",
                  type: "code",
                  config: {
                    source:
                      "export default function (i) { return { total: i.state.total + i.order.total, seen: i.state.seen + 1, of: i.of } }",
                    input: {
                      state: "{{ loop.state }}",
                      order: "{{ loop.item }}",
                      of: "{{ loop.items.length }}",
                    },
                  },
                },
              ],
            },
          },
        },
      ],
      output: "{{ steps.sum.output.meta.state }}",
    });
    const orders = [{ total: 5 }, { total: 7.5 }, { total: 10 }, { total: 2.5 }];
    const run = await e.waitFor(await e.start(wf, { orders }), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ total: 25, seen: 4, of: 4 });
    const loop = (await e.steps(run.id)).find((s) => s.path === "sum")!;
    const out = loop.output as { data: unknown[]; meta: Record<string, unknown> };
    // Each iteration's value is the state it produced, in order.
    expect(out.data.map((d) => (d as { total: number }).total)).toEqual([5, 12.5, 22.5, 25]);
    expect(out.meta).toMatchObject({ count: 4, items: 4, state: { total: 25, seen: 4 } });
  });

  it("hands the body batches of 3 over 7 items; loop.index is the batch number", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Batches",
      steps: [
        {
          id: "each",
          type: "loop",
          config: {
            items: [1, 2, 3, 4, 5, 6, 7],
            batchSize: 3,
            body: {
              steps: [
                {
                  id: "b",
                  type: "transform",
                  config: {
                    value: { index: "{{ loop.index }}", batch: "{{ loop.batch }}" },
                  },
                },
              ],
            },
          },
        },
      ],
      output: "{{ steps.each.output }}",
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toMatchObject({
      data: [
        { index: 0, batch: [1, 2, 3] },
        { index: 1, batch: [4, 5, 6] },
        { index: 2, batch: [7] },
      ],
      meta: { count: 3, items: 7, batchSize: 3, batches: 3 },
    });
    expect((await e.steps(run.id)).map((s) => s.path).filter((p) => p.startsWith("each["))).toEqual(
      ["each[0].b", "each[1].b", "each[2].b"],
    );
  });

  it("keeps per-iteration records small over a 10,000-item list", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Big list",
      inputs: { rows: { type: "array", required: true } },
      steps: [
        {
          id: "big",
          type: "loop",
          config: {
            items: "{{ input.rows }}",
            maxItems: 10_000,
            batchSize: 1000,
            state: { count: 0 },
            stateFrom: "acc",
            body: {
              steps: [
                {
                  id: "peek",
                  type: "transform",
                  config: {
                    value: {
                      first: "{{ loop.batch[0] }}",
                      of: "{{ loop.items.length }}",
                      index: "{{ loop.index }}",
                    },
                  },
                },
                {
                  id: "acc",
                  type: "code",
                  config: {
                    source: "export default function (i) { return { count: i.state.count + i.n } }",
                    input: { state: "{{ loop.state }}", n: "{{ loop.batch.length }}" },
                  },
                },
              ],
            },
          },
        },
      ],
      output: "{{ steps.big.output.meta.state }}",
    });
    const rows = Array.from({ length: 10_000 }, (_, i) => i);
    const run = await e.waitFor(await e.start(wf, { rows }), ["completed", "failed"], {
      timeoutMs: 120_000,
    });
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ count: 10_000 });
    const steps = await e.steps(run.id);
    expect(steps.filter((s) => s.path.endsWith(".peek"))).toHaveLength(10);
    const peek5 = steps.find((s) => s.path === "big[5].peek")!;
    expect((peek5.output as { data: unknown }).data).toEqual({ first: 5000, of: 10_000, index: 5 });
    // No record of the run copies the list (or a batch): every row stays under 1 KB.
    for (const s of steps) {
      const size = JSON.stringify([s.input, s.output, s.error]).length;
      expect(size, `${s.path} is ${size} characters`).toBeLessThan(1024);
    }
    const events = await e.db.db
      .select({ data: runEvents.data })
      .from(runEvents)
      .where(eq(runEvents.runId, run.id));
    expect(Math.max(...events.map((ev) => JSON.stringify(ev.data).length))).toBeLessThan(1024);
    const [loop] = await e.db.db
      .select({ input: runSteps.input })
      .from(runSteps)
      .where(eq(runSteps.id, `${run.id}:big:1`));
    expect(loop!.input).toEqual({
      items: 10_000,
      concurrency: 1,
      batchSize: 1000,
      stateFrom: "acc",
    });
  });
});
