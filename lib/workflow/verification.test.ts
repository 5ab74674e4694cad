import { describe, expect, it } from "vitest";
import { diffDefinitions } from "./diff";
import type { DryRunRunReport, ReplayStepReport } from "./dry-run-types";
import { computeVerification } from "./verification";

const def = (value: string, extra: Record<string, unknown>[] = []) => ({
  schemaVersion: 1,
  name: "V",
  steps: [
    { id: "a", type: "transform", config: { value: "x" } },
    { id: "b", type: "transform", config: { value } },
    ...extra,
  ],
  edges: [{ from: "a", to: "b" }],
});
const diff = diffDefinitions(def("1"), def("2"));

function report(runId: string, steps: Partial<ReplayStepReport>[]): DryRunRunReport {
  return {
    runId,
    verdict: "same_path",
    newlyExecuted: [],
    newlySkipped: [],
    notComparable: [],
    failure: null,
    outputBefore: null,
    outputAfter: null,
    outputChanged: false,
    steps: steps.map((s) => ({
      path: s.path!,
      stepId: s.path!,
      stepType: "transform",
      ran: "both",
      verdict: "same",
      ...s,
    })),
  };
}
const done = (runs: DryRunRunReport[]) => ({ status: "done", error: null, report: { runs } });

describe("verification level", () => {
  it("is unproven with no replayed run, whatever the proposer claims", () => {
    const v = computeVerification({ diff, dryRun: done([]), shadowRuns: [] });
    expect(v.level).toBe("unproven");
    expect(v.reasons.join("\n")).toMatch(/No run was replayed/);
  });

  it("is verified when every changed step ran and nothing is unverified", () => {
    const v = computeVerification({
      diff,
      dryRun: done([report("r1", [{ path: "a" }, { path: "b", verdict: "different_output" }])]),
      shadowRuns: [],
    });
    expect(v).toMatchObject({
      level: "verified",
      runs: 1,
      changedSteps: [{ stepId: "b", exercised: 1 }],
    });
  });

  it("is partial when a changed step was not exercised, or a step is unverified, or a replay failed", () => {
    const notReached = computeVerification({
      diff,
      dryRun: done([
        report("r1", [{ path: "a" }, { path: "b", ran: "original", verdict: "different_path" }]),
      ]),
      shadowRuns: [],
    });
    expect(notReached.level).toBe("partial");
    expect(notReached.reasons).toContain('Changed step "b" was not exercised by any replayed run');
    const unverified = computeVerification({
      diff,
      dryRun: done([
        report("r1", [{ path: "a", verdict: "unverified", reason: "no recording" }, { path: "b" }]),
      ]),
      shadowRuns: [],
    });
    expect(unverified).toMatchObject({ level: "partial", unverifiedSteps: ["a"] });
    const failed = computeVerification({
      diff,
      dryRun: done([report("r1", [{ path: "a" }, { path: "b" }])]),
      shadowRuns: [{ ...report("r2", []), steps: undefined, replayError: "boom" }],
    });
    expect(failed.level).toBe("partial");
    expect(failed.reasons.join("\n")).toMatch(/shadow replay of run r2 failed: boom/);
  });

  it("counts shadow runs as evidence", () => {
    const v = computeVerification({
      diff,
      dryRun: done([]),
      shadowRuns: [report("s1", [{ path: "a" }, { path: "b" }])],
    });
    expect(v).toMatchObject({ level: "verified", runs: 1, shadowRuns: 1 });
  });
});
