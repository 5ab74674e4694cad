import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { diffRuns } from "./diff-runs";

let e: RunHarness;
let other: WorkspaceFixture;
beforeAll(async () => {
  e = await startRunHarness("diffruns");
  other = await createWorkspaceFixture(e.db.db, "Other");
});
afterAll(async () => {
  await e?.close();
});

/*
 *   v1:  check ──true──▶ hot ──▶ each (loop over input.items) ──▶ done
 *          └───false──▶ cold ─┘
 *   v2:  the same, hot says "HOT", and `extra` after done
 */
const v1 = {
  schemaVersion: 1,
  name: "Diffed",
  inputs: { n: { type: "number", required: true }, items: { type: "array", default: [] } },
  steps: [
    { id: "check", type: "condition", config: { condition: { ref: "input.n", gt: 5 } } },
    { id: "hot", type: "transform", config: { value: "hot" } },
    { id: "cold", type: "transform", config: { value: "cold" } },
    {
      id: "each",
      type: "loop",
      config: {
        items: "{{ input.items }}",
        body: { steps: [{ id: "twice", type: "transform", config: { value: "{{ loop.item }}" } }] },
      },
    },
    { id: "done", type: "transform", config: { value: { n: "{{ input.n }}" } } },
  ],
  edges: [
    { from: "check", port: "true", to: "hot" },
    { from: "check", port: "false", to: "cold" },
    { from: "hot", to: "each" },
    { from: "cold", to: "each" },
    { from: "each", to: "done" },
  ],
  output: "{{ steps.done.output.data }}",
};
const v2 = {
  ...v1,
  steps: [
    ...v1.steps.map((s) => (s.id === "hot" ? { ...s, config: { value: "HOT" } } : s)),
    { id: "extra", type: "transform", config: { value: 1 } },
  ],
  edges: [...v1.edges, { from: "done", to: "extra" }],
};

describe("diffRuns", () => {
  let wf: string;
  let a: string;
  let b: string;
  beforeAll(async () => {
    wf = await e.workflow(v1);
    a = (await e.waitFor(await e.start(wf, { n: 9, items: [1, 2, 3] }), ["completed"])).id;
    await saveDraft({ ctx: e.ws.ctx("editor"), input: { workflowId: wf, definition: v2 } });
    await publishWorkflow({ ctx: e.ws.ctx("editor"), input: { workflowId: wf } });
    b = (await e.waitFor(await e.start(wf, { n: 1, items: [1, 2] }), ["completed"])).id;
  });

  it("compares two runs of different versions step by step: branch, loop, output, steps only in B", async () => {
    const d = await diffRuns({ ctx: e.ws.ctx("viewer"), input: { runId: b, withRunId: a } });
    expect(d.a).toMatchObject({ id: a, status: "completed" });
    expect(d.b).toMatchObject({ id: b, status: "completed" });
    expect(d.a.version).not.toBe(d.b.version);
    expect(d.sameVersion).toBe(false);
    expect(d.input.changes.map((c) => c.where)).toEqual(["$.n", "$.items[2]"]);
    expect(d.output.changes).toMatchObject([{ where: "$.n", before: 9, after: 1 }]);
    const step = (path: string) => d.steps.find((s) => s.path === path)!;
    expect(step("check")).toMatchObject({
      verdict: "different",
      pathChanged: true,
      a: { port: "true" },
      b: { port: "false" },
    });
    expect(step("hot")).toMatchObject({ a: { status: "completed" }, b: { status: "skipped" } });
    expect(step("cold")).toMatchObject({ a: { status: "skipped" }, b: { status: "completed" } });
    expect(step("extra")).toMatchObject({ verdict: "only_b", a: null });
    expect(step("each[2].twice")).toMatchObject({ verdict: "only_a", isIteration: true });
    expect(step("each[0].twice").verdict).toBe("same");
    expect(d.summary).toMatchObject({
      onlyInA: [],
      onlyInB: ["extra"],
      branchChanged: expect.arrayContaining(["check", "hot", "cold"]),
      loops: [{ stepId: "each", iterationsA: 3, iterationsB: 2 }],
      pathsDiffer: true,
    });
  });

  it("compares with the previous run of the same workflow when no run is named", async () => {
    const d = await diffRuns({ ctx: e.ws.ctx("viewer"), input: { runId: b } });
    expect(d.a.id).toBe(a);
    await expect(diffRuns({ ctx: e.ws.ctx("viewer"), input: { runId: a } })).rejects.toThrow(
      /first run of its workflow/,
    );
  });

  it("refuses runs of another workspace as not found, and anonymous callers", async () => {
    await expect(
      diffRuns({ ctx: other.ctx("owner"), input: { runId: b, withRunId: a } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const foreignWf = await e.workflow(v1, other);
    const foreign = await e.waitFor(await e.start(foreignWf, { n: 1 }, other), ["completed"]);
    await expect(
      diffRuns({ ctx: e.ws.ctx("owner"), input: { runId: b, withRunId: foreign.id } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      diffRuns({
        ctx: { ...e.ws.ctx("viewer"), actor: { type: "anonymous" } },
        input: { runId: b },
      }),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("answers a capped diff for a ~1 MB output (the code step limit)", async () => {
    const big = await e.workflow({
      schemaVersion: 1,
      name: "Big output",
      inputs: { rename: { type: "number", default: -1 } },
      steps: [
        {
          id: "rows",
          type: "code",
          config: {
            source:
              "export default function (input) { return Array.from({ length: 17500 }, (_, i) => ({ id: i, name: i === input.rename ? 'renamed' : 'row number ' + i, tags: ['a', 'b'] })) }",
            input: { rename: "{{ input.rename }}" },
          },
        },
      ],
    });
    const r1 = await e.waitFor(await e.start(big, {}), ["completed", "failed"]);
    const r2 = await e.waitFor(await e.start(big, { rename: 12345 }), ["completed", "failed"]);
    expect([r1.status, r2.status], JSON.stringify(r1.error)).toEqual(["completed", "completed"]);
    const rows = (await e.steps(r2.id)).find((s) => s.path === "rows")!;
    expect(JSON.stringify(rows.output).length).toBeGreaterThan(900_000);
    const d = await diffRuns({ ctx: e.ws.ctx("viewer"), input: { runId: r2.id } });
    const step = d.steps.find((s) => s.path === "rows")!;
    expect(step.output!.changes).toMatchObject([
      { where: "$[12345].name", before: "row number 12345", after: "renamed" },
    ]);
    // The answer is bounded: nothing near the output's size travels back.
    expect(JSON.stringify(d).length).toBeLessThan(50_000);
  });
});
