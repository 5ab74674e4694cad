import { describe, expect, it } from "vitest";
import { outputPreview, testStepResults } from "./test-results";

describe("testStepResults", () => {
  it("keeps each top-level step's last attempt and leaves loop iterations out", () => {
    const r = testStepResults([
      { stepId: "a", path: "a", attempt: 1, status: "failed", error: { message: "x" } },
      { stepId: "a", path: "a", attempt: 2, status: "completed", output: { data: 1 } },
      { stepId: "b", path: "each[0].b", attempt: 1, status: "completed", output: { data: 2 } },
    ]);
    expect([...r]).toEqual([["a", { status: "completed", output: { data: 1 }, error: null }]]);
  });
});

describe("outputPreview", () => {
  it("shows the output's data on one line, cut at the limit", () => {
    expect(outputPreview({ type: "transform", data: "hello", meta: {} })).toBe("hello");
    expect(outputPreview({ data: { n: 1 } })).toBe('{"n":1}');
    expect(outputPreview({ data: "x".repeat(50) }, 10)).toBe(`${"x".repeat(9)}…`);
  });
});
