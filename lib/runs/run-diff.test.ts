import { describe, expect, it } from "vitest";
import { diffRunSteps, type RunDiffStepRow } from "./run-diff";

const t0 = new Date("2026-01-01T00:00:00Z");
function row(path: string, over: Partial<RunDiffStepRow> = {}): RunDiffStepRow {
  return {
    path,
    stepId: path.split(/[[.]/)[0]!,
    stepType: "transform",
    attempt: 1,
    status: "completed",
    input: { x: 1 },
    output: { data: path, meta: { durationMs: 3 } },
    error: null,
    port: null,
    skipReason: null,
    startedAt: t0,
    finishedAt: new Date(t0.getTime() + 10),
    ...over,
  };
}

describe("diffRunSteps", () => {
  /*
   *   A: check ──yes──▶ ship          B: check ──no──▶ hold
   *                     (hold skipped)                  (ship skipped)
   */
  it("names the branch that changed, and steps that ran in one run only", () => {
    const a = [row("check", { port: "yes" }), row("ship"), row("hold", { status: "skipped" })];
    const b = [row("check", { port: "no" }), row("hold"), row("audit")];
    const d = diffRunSteps(a, b);
    expect(d.steps.map((s) => [s.path, s.verdict])).toEqual([
      ["check", "different"],
      ["ship", "only_a"],
      ["hold", "different"],
      ["audit", "only_b"],
    ]);
    expect(d.summary).toMatchObject({
      same: 0,
      different: 2,
      onlyA: 1,
      onlyB: 1,
      onlyInA: ["ship"],
      onlyInB: ["audit"],
      branchChanged: ["check", "hold"],
      pathsDiffer: true,
    });
  });

  it("diffs input and output, status and duration; identical steps are `same`", () => {
    const a = [row("a"), row("b", { output: { data: { n: 1 } } })];
    const b = [
      row("a"),
      row("b", {
        output: { data: { n: 2 }, meta: { durationMs: 40 } },
        status: "failed",
        finishedAt: new Date(t0.getTime() + 50),
        attempt: 2,
      }),
    ];
    const d = diffRunSteps(a, b);
    expect(d.steps[0]).toMatchObject({ verdict: "same", durationDeltaMs: 0 });
    expect(d.steps[1]).toMatchObject({
      verdict: "different",
      statusChanged: true,
      pathChanged: false,
      durationDeltaMs: 40,
    });
    expect(d.steps[1]!.output!.changes).toEqual([
      { kind: "changed", path: ["n"], where: "$.n", before: 1, after: 2, clipped: false },
    ]);
    expect(d.summary.pathsDiffer).toBe(false);
  });

  it("uses the last attempt and counts attempts", () => {
    const a = [
      row("call", { attempt: 1, status: "failed", output: null }),
      row("call", { attempt: 2 }),
    ];
    const d = diffRunSteps(a, [row("call")]);
    expect(d.steps[0]).toMatchObject({ verdict: "same", a: { attempts: 2 }, b: { attempts: 1 } });
  });

  /*   each over [1,2,3] in A, over [1,2] in B: iteration each[2].body only in A */
  it("counts loop iterations per loop step", () => {
    const it = (i: number) => row(`each[${i}].body`, { stepId: "body" });
    const a = [row("each"), it(0), it(1), it(2)];
    const b = [row("each"), it(0), it(1)];
    const d = diffRunSteps(a, b);
    expect(d.summary.loops).toEqual([{ stepId: "each", iterationsA: 3, iterationsB: 2 }]);
    expect(d.summary.onlyInA).toEqual([]);
    expect(d.steps.find((s) => s.path === "each[2].body")).toMatchObject({
      verdict: "only_a",
      isIteration: true,
    });
    expect(d.summary.pathsDiffer).toBe(true);
  });
});
