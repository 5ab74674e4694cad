import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { typeScopeOf } from "@/lib/workflow/comparison-types";
import { CONDITION_OPERATORS } from "@/lib/workflow/conditions";
import type { JsonValue } from "@/lib/workflow/json";
import {
  addChild,
  convertValue,
  removeNode,
  setGroupMode,
  setLeafOperator,
  setLeafRef,
  setLeafValue,
  shownValueType,
  toCondition,
  toTree,
  typedValue,
  unwrapNot,
  wrapNode,
} from "./condition-model";

const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const ref = fc.constantFrom("input.x", "steps.a.output.data", "vars.env", "", "loop.item");

/** Leaves (either key order), groups, not, and shapes the builder shows as raw JSON. */
const condition = fc.letrec<{ cond: unknown }>((tie) => ({
  cond: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ ref }),
    fc
      .tuple(ref, fc.constantFrom(...CONDITION_OPERATORS), scalar, fc.boolean())
      .map(([r, op, v, opFirst]) => {
        const value = op === "exists" ? true : op === "in" ? [v] : v;
        return opFirst ? { [op]: value, ref: r } : { ref: r, [op]: value };
      }),
    fc.record({ all: fc.array(tie("cond"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(tie("cond"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie("cond") }),
    // Unsupported: two operators, unknown keys, empty groups, non-objects.
    fc.constant({ ref: "input.x", eq: 1, neq: 2 }),
    fc.constant({ ref: "input.x", bogus: true }),
    fc.constant({ all: [] }),
    fc.constant({ all: [{ ref: "a" }], extra: 1 }),
    fc.constant("input.x"),
    fc.constant({ ref: "input.x", exists: "yes" }),
  ),
})).cond;

describe("condition JSON ⇄ builder tree", () => {
  it("round-trips every condition exactly, key order included (property)", () => {
    fc.assert(
      fc.property(condition, (c) => {
        expect(JSON.stringify(toCondition(toTree(c)))).toBe(JSON.stringify(c));
      }),
      { numRuns: 500 },
    );
  });

  it("reads leaves, groups and not; unsupported parts become raw nodes with a reason", () => {
    const tree = toTree({
      all: [{ ref: "input.ok" }, { not: { ref: "x", eq: 1, neq: 2 } }, { gt: 3, ref: "input.n" }],
    });
    expect(tree.kind).toBe("group");
    if (tree.kind !== "group") return;
    expect(tree.children[0]).toMatchObject({ kind: "leaf", op: "truthy", path: ["all", 0] });
    expect(tree.children[1]).toMatchObject({
      kind: "not",
      child: {
        kind: "raw",
        path: ["all", 1, "not"],
        reason: expect.stringMatching(/One operator/),
      },
    });
    expect(tree.children[2]).toMatchObject({ kind: "leaf", op: "gt", value: 3, opFirst: true });
  });

  it("keeps a new, still empty leaf a leaf (the builder shows its problem next to it)", () => {
    expect(toTree({ ref: "", eq: "" })).toMatchObject({ kind: "leaf", ref: "" });
  });
});

describe("edits by path change only the node edited", () => {
  const base = {
    any: [
      { eq: 0, ref: "steps.lint.output.data.exitCode" },
      { all: [{ ref: "input.force" }, { ref: "vars.env", in: ["prod", "staging"] }] },
    ],
  };

  it("ref, operator (keeping the key's place) and value", () => {
    const renamed = setLeafRef(base, ["any", 0], "input.x") as typeof base;
    expect(JSON.stringify(renamed.any[0])).toBe('{"eq":0,"ref":"input.x"}');
    expect(renamed.any[1]).toBe(base.any[1]); // untouched parts are the same objects
    const op = setLeafOperator(base, ["any", 0], "gte") as typeof base;
    expect(JSON.stringify(op.any[0])).toBe('{"gte":0,"ref":"steps.lint.output.data.exitCode"}');
    const truthy = setLeafOperator(base, ["any", 1, "all", 1], "truthy") as typeof base;
    expect((truthy.any[1] as { all: unknown[] }).all[1]).toEqual({ ref: "vars.env" });
    const back = setLeafOperator(truthy, ["any", 1, "all", 1], "in") as typeof base;
    expect((back.any[1] as { all: unknown[] }).all[1]).toEqual({ ref: "vars.env", in: [] });
    const value = setLeafValue(base, ["any", 0], 2) as typeof base;
    expect(value.any[0]).toEqual({ eq: 2, ref: "steps.lint.output.data.exitCode" });
  });

  it("switching operators keeps a value that still fits", () => {
    const leaf = { ref: "a", eq: 5 };
    expect(setLeafOperator(leaf, [], "gt")).toEqual({ ref: "a", gt: 5 });
    expect(setLeafOperator(leaf, [], "in")).toEqual({ ref: "a", in: [5] });
    expect(setLeafOperator(leaf, [], "exists")).toEqual({ ref: "a", exists: true });
  });

  it("groups: mode, add, remove (collapsing a group of one), wrap and unwrap", () => {
    expect(setGroupMode(base, [], "all")).toEqual({ all: base.any });
    const added = addChild(base, ["any", 1]) as { any: [unknown, { all: unknown[] }] };
    expect(added.any[1].all).toHaveLength(3);
    expect(removeNode(base, ["any", 0])).toEqual(base.any[1]);
    expect(removeNode(base, ["any", 1, "all", 0])).toEqual({
      any: [base.any[0], { ref: "vars.env", in: ["prod", "staging"] }],
    });
    expect(removeNode(base, [])).toBeUndefined();
    const notted = wrapNode(base, ["any", 0], "not") as typeof base;
    expect(notted.any[0]).toEqual({ not: base.any[0] });
    expect(unwrapNot(notted, ["any", 0])).toEqual(base);
    expect(removeNode(notted, ["any", 0, "not"])).toEqual(base.any[1]);
    expect(wrapNode({ ref: "a" }, [], "all")).toEqual({ all: [{ ref: "a" }, { ref: "", eq: "" }] });
  });

  it("value types convert what they can", () => {
    expect(convertValue("3", "number")).toBe(3);
    expect(convertValue("x", "number")).toBe(0);
    expect(convertValue(3, "string")).toBe("3");
    expect(convertValue("true", "boolean")).toBe(true);
    expect(convertValue([1], "string")).toBe("[1]");
    expect(convertValue(undefined, "json")).toBeNull();
  });
});

describe('typed values (the 250 > "100" approval gate)', () => {
  const scope = typeScopeOf({
    inputs: { amount: { type: "number" }, note: { type: "string" } },
  });

  it('saves "100" as 100 when the operator becomes > on a number input', () => {
    const root = { ref: "input.amount", eq: "100" };
    expect(setLeafOperator(root, [], "gt", scope)).toEqual({ ref: "input.amount", gt: 100 });
    // Ordering compares numbers unless the reference is known to be text (ISO dates).
    expect(setLeafOperator({ ref: "input.note", eq: "100" }, [], "gt", scope)).toEqual({
      ref: "input.note",
      gt: "100",
    });
    // equals follows the reference's type; unknown references keep the text.
    expect(setLeafOperator({ ref: "input.amount", neq: "7" }, [], "eq", scope)).toEqual({
      ref: "input.amount",
      eq: 7,
    });
    expect(setLeafOperator({ ref: "trigger.data.x", neq: "7" }, [], "eq", scope)).toEqual({
      ref: "trigger.data.x",
      eq: "7",
    });
  });

  it("converts the value when the reference becomes a number input", () => {
    const root = { all: [{ ref: "input.no", eq: "250" }] };
    expect(setLeafRef(root, ["all", 0], "input.amount", scope)).toEqual({
      all: [{ ref: "input.amount", eq: 250 }],
    });
  });

  it("shows an empty value under a number operator as a number, and types numbers as numbers", () => {
    expect(shownValueType("", "number")).toBe("number");
    expect(shownValueType("", "string")).toBe("string");
    expect(shownValueType("100", "number")).toBe("string");
    expect(typedValue("100", "number")).toBe(100);
    expect(typedValue("-", "number")).toBe("-");
    expect(typedValue("100", "string")).toBe("100");
    // Retyped into a field that holds text, under > against a number: still saved as a number.
    expect(typedValue("100", "string", "number")).toBe(100);
    expect(typedValue("2024-01-01", "string", "number")).toBe("2024-01-01");
  });
});
