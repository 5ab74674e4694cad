import { describe, expect, it } from "vitest";
import {
  coerceLiteral,
  comparisonProblems,
  expectedValueType,
  referenceType,
  typeScopeOf,
} from "./comparison-types";

const definition = {
  inputs: { amount: { type: "number" }, region: { type: "string" }, bad: { type: "nope" } },
  variables: { limit: 100, env: "prod" },
  steps: [
    {
      id: "review",
      type: "task",
      config: { outputSchema: { total: { type: "number" }, ok: { type: "boolean" } } },
    },
    { id: "call", type: "http", config: {} },
    { id: "check", type: "condition", config: {} },
    {
      id: "each",
      type: "loop",
      config: { body: { steps: [{ id: "inner", type: "script", config: {} }] } },
    },
  ],
};
const scope = typeScopeOf(definition);

describe("referenceType", () => {
  it.each([
    ["input.amount", "number"],
    ["input.region", "string"],
    ["input.bad", undefined],
    ["input.amount.x", undefined],
    ["vars.limit", "number"],
    ["vars.env", "string"],
    ["steps.review.output.data.total", "number"],
    ["steps.review.output.data.ok", "boolean"],
    ["steps.review.output.data.other", undefined],
    ["steps.review.status", "string"],
    ["steps.call.output.data.status", "number"],
    ["steps.call.output.data.body", undefined],
    ["steps.check.output.data", "boolean"],
    ["steps.inner.output.data.exitCode", "number"],
    ["loop.index", "number"],
    ["trigger.data.total", undefined],
    ["not a path!", undefined],
  ])("%s → %s", (ref, type) => {
    expect(referenceType(scope, ref)).toBe(type);
  });
});

describe("expectedValueType and coerceLiteral", () => {
  it("wants numbers for ordering unless the reference is text", () => {
    expect(expectedValueType("gt", "number")).toBe("number");
    expect(expectedValueType("lte", undefined)).toBe("number");
    expect(expectedValueType("gt", "string")).toBe("string");
    expect(expectedValueType("eq", "boolean")).toBe("boolean");
    expect(expectedValueType("eq", undefined)).toBeUndefined();
    expect(expectedValueType("matches", "number")).toBe("string");
  });

  it('saves "100" under a number as 100, and leaves other text alone', () => {
    expect(coerceLiteral("100", "number")).toBe(100);
    expect(coerceLiteral(" 2.5 ", "number")).toBe(2.5);
    expect(coerceLiteral("abc", "number")).toBe("abc");
    expect(coerceLiteral("", "number")).toBe("");
    expect(coerceLiteral("{{ input.x }}", "number")).toBe("{{ input.x }}");
    expect(coerceLiteral("true", "boolean")).toBe(true);
    expect(coerceLiteral("100", "string")).toBe("100");
    expect(coerceLiteral("100", undefined)).toBe("100");
  });
});

describe("comparisonProblems", () => {
  it("names a number compared with text, relative to the condition", () => {
    expect(
      comparisonProblems({ any: [{ ref: "vars.limit", neq: "100" }, { ref: "x.y" }] }, scope),
    ).toEqual([
      {
        location: ["any", 0, "neq"],
        message:
          'compares vars.limit (a number) with the text "100": values of different types are never equal, so this is always true; write 100 without quotes.',
      },
    ]);
  });
});
