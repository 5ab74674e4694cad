import { describe, expect, it } from "vitest";
import {
  RunLimits,
  runLimitIssues,
  storedRunLimits,
  subworkflowDepthMessage,
  tightenConstraints,
} from "./run-limits";

const caps = { timeoutMs: 60_000, maxSteps: 10, maxParallel: 4 };

describe("run limits", () => {
  it("only tighten: equal or smaller passes, larger names the field and the maximum", () => {
    expect(runLimitIssues({ timeoutMs: 60_000, maxSteps: 1, maxParallel: 4 }, caps)).toEqual([]);
    expect(runLimitIssues({ maxSteps: 11, maxParallel: 5 }, caps)).toEqual([
      {
        path: ["limits", "maxSteps"],
        message: "limits.maxSteps may only tighten the workflow's limit: at most 10, got 11",
      },
      {
        path: ["limits", "maxParallel"],
        message: "limits.maxParallel may only tighten the workflow's limit: at most 4, got 5",
      },
    ]);
    expect(runLimitIssues(null, caps)).toEqual([]);
  });

  it("tighten the constraints the engine reads, leaving the rest alone", () => {
    const c = { ...caps, overflow: "queue" as const };
    expect(tightenConstraints(c, { maxSteps: 2 })).toEqual({ ...c, maxSteps: 2 });
    expect(tightenConstraints(c, { maxParallel: 99 })).toEqual(c);
    expect(tightenConstraints(c, null)).toBe(c);
  });

  it("store only what was given; the contract refuses unknown keys and bad numbers", () => {
    expect(storedRunLimits({})).toBeNull();
    expect(storedRunLimits({ maxSteps: 3, timeoutMs: undefined })).toEqual({ maxSteps: 3 });
    expect(RunLimits.safeParse({ maxStep: 3 }).success).toBe(false);
    expect(RunLimits.safeParse({ timeoutMs: 999 }).success).toBe(false);
    expect(RunLimits.safeParse({ maxParallel: 1.5 }).success).toBe(false);
  });
});

describe("sub-workflow depth message", () => {
  it("names the chain root first and clips long slugs", () => {
    expect(subworkflowDepthMessage(2, ["a", "b", "a", "b"])).toBe(
      "sub-workflow depth 2 exceeded: a → b → a → b",
    );
    expect(subworkflowDepthMessage(1, ["x".repeat(100), "y"])).toBe(
      `sub-workflow depth 1 exceeded: ${"x".repeat(39)}… → y`,
    );
  });
});
