import { describe, expect, it } from "vitest";
import { checkConditionShape, Condition, ConditionError, conditionRefs } from "./conditions";
import { regexProblem } from "./condition-regex";
import {
  applyOperator,
  evaluateCondition,
  explainCondition,
  isTruthy,
  MAX_RECORDED_CHECKS,
  traceCondition,
} from "./condition-eval";
import type { TemplateContext } from "./template-resolve";

const ctx: TemplateContext = {
  input: {
    n: 5,
    s: "release-1.2",
    list: ["a", "b"],
    obj: { k: 1 },
    none: null,
    date: "2024-05-01T00:00:00Z",
    zero: 0,
    empty: [],
  },
  vars: { threshold: 3, allowed: ["a", "c"] },
  steps: {
    lint: { output: { type: "script", data: { exitCode: 0 }, meta: {} }, status: "completed" },
  },
};
const ev = (c: unknown) => evaluateCondition(c as Condition, ctx);

describe("operators", () => {
  it.each([
    [{ ref: "steps.lint.output.data.exitCode", eq: 0 }, true],
    [{ ref: "input.n", eq: "5" }, false],
    [{ ref: "input.n", neq: 4 }, true],
    [{ ref: "input.obj", eq: { k: 1 } }, true],
    [{ ref: "input.missing", eq: null }, true],
    [{ ref: "input.n", gt: "{{ vars.threshold }}" }, true],
    [{ ref: "input.n", gte: 5 }, true],
    [{ ref: "input.n", lt: 5 }, false],
    [{ ref: "input.n", lte: 5 }, true],
    [{ ref: "input.s", gt: 3 }, false],
    [{ ref: "input.date", gt: "2024-01-01T00:00:00Z" }, true],
    [{ ref: "input.missing", lt: 10 }, false],
    [{ ref: "input.s", in: ["x", "release-1.2"] }, true],
    [{ ref: "input.s", in: "{{ vars.allowed }}" }, false],
    [{ ref: "input.s", in: "not-an-array" }, false],
    [{ ref: "input.s", contains: "1.2" }, true],
    [{ ref: "input.list", contains: "b" }, true],
    [{ ref: "input.obj", contains: "k" }, true],
    [{ ref: "input.n", contains: 5 }, false],
    [{ ref: "input.none", exists: true }, false],
    [{ ref: "input.missing", exists: false }, true],
    [{ ref: "input.zero", exists: true }, true],
    [{ ref: "input.s", matches: "^release-\\d+\\.\\d+$" }, true],
    [{ ref: "input.s", matches: { pattern: "^RELEASE", flags: "i" } }, true],
    [{ ref: "input.n", matches: "5" }, false],
  ])("%j → %s", (condition, expected) => {
    expect(ev(condition)).toBe(expected);
  });

  it("no operator means truthy; empty collections are falsy", () => {
    expect(ev({ ref: "input.list" })).toBe(true);
    expect(ev({ ref: "input.empty" })).toBe(false);
    expect(ev({ ref: "input.zero" })).toBe(false);
    expect(ev({ ref: "input.missing" })).toBe(false);
    expect([{}, [], "", 0, Number.NaN, null, undefined, false].map(isTruthy)).toEqual(
      Array(8).fill(false),
    );
    expect(["false", "0", [0], { a: 1 }, -1, true].map(isTruthy)).toEqual(Array(6).fill(true));
  });

  it("combinators", () => {
    expect(
      ev({
        all: [
          { ref: "input.n", gt: 1 },
          { ref: "input.s", contains: "release" },
        ],
      }),
    ).toBe(true);
    expect(ev({ any: [{ ref: "input.n", gt: 100 }, { ref: "input.list" }] })).toBe(true);
    expect(ev({ not: { ref: "input.n", eq: 5 } })).toBe(false);
    expect(ev({ all: [{ any: [{ ref: "input.none" }, { not: { ref: "input.zero" } }] }] })).toBe(
      true,
    );
  });

  it("applyOperator compares without coercion", () => {
    expect(applyOperator("eq", 1, true)).toBe(false);
    expect(applyOperator("gt", Number.NaN, 1)).toBe(false);
    expect(applyOperator("gt", "b", "a")).toBe(true);
  });
});

describe("shape checks", () => {
  it.each([
    ["not an object", "x", /must be an object/],
    ["missing ref", { eq: 1 }, /needs "ref"/],
    ["two operators", { ref: "input.n", eq: 1, gt: 0 }, /one operator, found eq and gt/],
    ["unknown key", { ref: "input.n", equals: 1 }, /Unknown condition key "equals"/],
    ["exists not boolean", { ref: "input.n", exists: "yes" }, /takes true or false/],
    ["in not array", { ref: "input.n", in: 5 }, /takes an array/],
    ["empty all", { all: [] }, /non-empty array/],
    ["all with extra", { all: [{ ref: "input.n" }], ref: "x" }, /no other keys/],
    ["not with extra", { not: { ref: "input.n" }, eq: 1 }, /no other keys/],
    ["bad regex", { ref: "input.s", matches: "(" }, /Invalid regex/],
    ["bad flags", { ref: "input.s", matches: { pattern: "a", flags: "g" } }, /flags "g"/],
    ["nested quantifier", { ref: "input.s", matches: "(a+)+$" }, /repeats a group/],
    ["backreference", { ref: "input.s", matches: "(a)\\1" }, /back-reference/],
    ["long regex", { ref: "input.s", matches: "a".repeat(300) }, /limit is 256/],
  ])("%s", (_name, condition, message) => {
    const issues = checkConditionShape(condition);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.map((i) => i.message).join("\n")).toMatch(message);
  });

  it("reports nested problems at their path", () => {
    const issues = checkConditionShape({
      all: [{ ref: "input.a" }, { any: [{ ref: "input.b", gt: 1, lt: 2 }] }],
    });
    expect(issues[0]!.path).toEqual(["all", 1, "any", 0]);
  });

  it("the zod schema surfaces shape issues with codes", () => {
    const result = Condition.safeParse({ ref: "input.s", matches: "(x*)*" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({
      path: ["matches"],
      params: { code: "INVALID_REGEX" },
    });
    expect(Condition.safeParse({ ref: "steps.a.output.data", eq: 1 }).success).toBe(true);
  });

  it("caps nesting depth", () => {
    let deep: unknown = { ref: "input.a" };
    for (let i = 0; i < 40; i++) deep = { not: deep };
    expect(checkConditionShape(deep).map((i) => i.message)).toContain(
      "Conditions nest at most 32 levels deep.",
    );
    expect(() => ev(deep)).toThrow(ConditionError);
  });

  it("regexProblem accepts ordinary patterns", () => {
    for (const ok of [
      "^v\\d+\\.\\d+$",
      "(foo|bar)+",
      "[a-z]+@[a-z]+\\.com",
      "(ab)?c*",
      "(a{1,1})*",
    ])
      expect(regexProblem(ok), ok).toBeNull();
    for (const bad of ["(a*)*", "(a|b+){2,}", "((ab)+)+", "(\\w+\\s?)+$"])
      expect(regexProblem(bad), bad).not.toBeNull();
  });
});

describe("run-time guards", () => {
  it("refuses an unsafe templated pattern and overlong subjects", () => {
    const c = { input: { s: "a".repeat(20_000), p: "(a+)+$", short: "aaa" } };
    expect(() => evaluateCondition({ ref: "input.short", matches: "{{ input.p }}" }, c)).toThrow(
      /repeats a group/,
    );
    expect(() => evaluateCondition({ ref: "input.s", matches: "a" }, c)).toThrow(/at most 10000/);
  });
});

describe("conditionRefs", () => {
  it("collects ref paths and templates in values", () => {
    const refs = conditionRefs({
      all: [
        { ref: "steps.lint.output.data.exitCode", eq: 0 },
        { ref: "input.n", gt: "{{ vars.threshold }}" },
        { not: { ref: "steps.other.status", eq: "failed" } },
      ],
    });
    expect(refs.steps).toEqual(["lint", "other"]);
    expect(refs.inputs).toEqual(["n"]);
    expect(refs.vars).toEqual(["threshold"]);
    expect(refs.references[0]!.location).toEqual(["all", 0, "ref"]);
  });

  it("explains a ref written as a template", () => {
    const refs = conditionRefs({ ref: "{{ input.n }}", eq: 1 });
    expect(refs.errors[0]!.error.message).toMatch(/bare path: write "input.n" without \{\{ \}\}/);
  });

  it("reports bad ref paths", () => {
    expect(conditionRefs({ ref: "nope.x" }).errors[0]!.error.code).toBe("UNKNOWN_TEMPLATE_ROOT");
  });
});

describe("explainCondition", () => {
  const delivery: TemplateContext = {
    trigger: { body: { action: "opened", pull_request: { merged: false } }, headers: {} },
  };

  it("is null when the condition holds, and names the value and the need when it does not", () => {
    expect(explainCondition({ ref: "trigger.body.action", eq: "opened" }, delivery)).toBeNull();
    expect(explainCondition({ ref: "trigger.body.action", eq: "closed" }, delivery)).toBe(
      'trigger.body.action is "opened", needs "closed"',
    );
    expect(explainCondition({ ref: "trigger.body.number", gte: 3 }, delivery)).toBe(
      "trigger.body.number missing, needs >= 3",
    );
    expect(explainCondition({ ref: "trigger.body.action", in: ["a", "b"] }, delivery)).toBe(
      'trigger.body.action is "opened", needs one of ["a","b"]',
    );
    expect(explainCondition({ ref: "trigger.body.label" }, delivery)).toBe(
      "trigger.body.label missing, needs a non-empty value",
    );
    expect(explainCondition({ ref: "trigger.body.action", exists: false }, delivery)).toBe(
      'trigger.body.action is "opened", needs to be absent',
    );
    expect(explainCondition({ ref: "trigger.body.action", matches: "^clo" }, delivery)).toBe(
      'trigger.body.action is "opened", needs to match /^clo/',
    );
  });

  it("all names its first false part; any names every part; not names what held", () => {
    const merged = {
      all: [
        { ref: "trigger.body.action", eq: "opened" },
        { ref: "trigger.body.pull_request.merged", eq: true },
      ],
    };
    expect(explainCondition(merged, delivery)).toBe(
      "trigger.body.pull_request.merged is false, needs true",
    );
    expect(
      explainCondition(
        {
          any: [
            { ref: "trigger.body.action", eq: "closed" },
            { ref: "trigger.body.action", eq: "merged" },
          ],
        },
        delivery,
      ),
    ).toBe(
      'none of these holds: trigger.body.action is "opened", needs "closed"; trigger.body.action is "opened", needs "merged"',
    );
    expect(explainCondition({ not: { ref: "trigger.body.action", eq: "opened" } }, delivery)).toBe(
      '{"ref":"trigger.body.action","eq":"opened"} holds, needs it not to',
    );
  });

  it("throws the evaluator's ConditionError for a condition that cannot be evaluated", () => {
    expect(() =>
      explainCondition({ ref: "trigger.body.action", matches: "(a+)+" }, delivery),
    ).toThrow(ConditionError);
  });
});

describe("traceCondition", () => {
  it("records each evaluated comparison with its resolved operands, as evaluation short-circuits", () => {
    const ctx = { input: { amount: 250, note: "x".repeat(500) } };
    const traced = traceCondition(
      {
        any: [
          { ref: "input.amount", gt: "100" },
          { ref: "input.amount", gt: "{{ input.limit }}" },
          { ref: "input.note" },
          { ref: "input.amount", lt: 0 },
        ],
      },
      ctx,
    );
    expect(traced.result).toBe(true);
    expect(
      traced.checks.map(({ ref, op, actual, expected, result }) => [
        ref,
        op,
        actual,
        expected,
        result,
      ]),
    ).toEqual([
      ["input.amount", "gt", "250", '"100"', false],
      ["input.amount", "gt", "250", "missing", false],
      ["input.note", "truthy", expect.stringMatching(/^"x{118}…$/), undefined, true],
    ]);
    expect(traced.omitted).toBe(0);
  });

  it("keeps at most MAX_RECORDED_CHECKS records and counts the rest", () => {
    const all = Array.from({ length: MAX_RECORDED_CHECKS + 3 }, () => ({ ref: "input.ok" }));
    const traced = traceCondition({ all }, { input: { ok: true } });
    expect(traced.checks).toHaveLength(MAX_RECORDED_CHECKS);
    expect(traced.omitted).toBe(3);
  });
});
