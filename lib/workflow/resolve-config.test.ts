/**
 * The "nothing" rule for templates (docs/workflow-language.md §6), as a table: what a step's
 * config becomes when a lone `{{ path }}` reaches a missing optional input or goes through null.
 * Each resolved config must parse with its step type's schema and survive a JSON round trip.
 */
import { describe, expect, it } from "vitest";
import { STEP_CATALOG } from "./catalog";
import { evaluateCondition } from "./condition-eval";
import { parseResolvedConfig, resolveStepConfig } from "./resolve-config";
import type { StepType } from "./steps";
import type { TemplateContext } from "./template-resolve";

const ctx: TemplateContext = {
  input: { name: "Ada", optional: undefined, nested: { inner: null }, list: [1, null] },
  vars: { region: "eu" },
  steps: {
    failed: { output: null, status: "failed" },
    ok: { output: { type: "transform", data: { items: [{ id: 1 }] }, meta: {} } },
  },
  loop: { item: null, index: 0 },
};

const cases: {
  name: string;
  type: StepType;
  config: Record<string, unknown>;
  expected: Record<string, unknown>;
}[] = [
  {
    name: "a missing optional input as the whole value",
    type: "transform",
    config: { value: "{{ input.missing }}" },
    expected: { value: null },
  },
  {
    name: "the output of a step that failed under `continue` (null)",
    type: "transform",
    config: { value: "{{ steps.failed.output.data }}" },
    expected: { value: null },
  },
  {
    name: "null in the middle of a path",
    type: "transform",
    config: { value: "{{ input.nested.inner.deeper }}" },
    expected: { value: null },
  },
  {
    name: "a key whose value reaches nothing is dropped from its object",
    type: "transform",
    config: { value: { a: "{{ input.missing }}", b: "{{ input.name }}", c: 1 } },
    expected: { value: { b: "Ada", c: 1 } },
  },
  {
    name: "an array element that reaches nothing becomes null",
    type: "transform",
    config: { value: ["{{ input.missing }}", "{{ input.list.1 }}", "{{ input.list.0 }}"] },
    expected: { value: [null, null, 1] },
  },
  {
    name: "an interpolated string writes nothing as an empty string",
    type: "transform",
    config: { value: "hello {{ input.missing }}!" },
    expected: { value: "hello !" },
  },
  {
    name: "inside a loop body: a path through a null item",
    type: "transform",
    config: { value: { name: "{{ loop.item.name }}", index: "{{ loop.index }}" } },
    expected: { value: { index: 0 } },
  },
  {
    name: "an optional field that reaches nothing is left out (its default applies)",
    type: "return",
    config: { value: "{{ steps.failed.output.data.result }}" },
    expected: {},
  },
  {
    name: "a present value keeps its type",
    type: "transform",
    config: { value: "{{ steps.ok.output.data.items }}" },
    expected: { value: [{ id: 1 }] },
  },
];

describe("templates that reach nothing", () => {
  it.each(cases)("$name", ({ type, config, expected }) => {
    const resolved = resolveStepConfig(type, config, ctx);
    expect(resolved).toEqual(expected);
    expect(JSON.parse(JSON.stringify(resolved))).toEqual(resolved);
    expect(STEP_CATALOG[type].config.safeParse(resolved).success).toBe(true);
  });

  it("a `when` through null is false, not an error", () => {
    expect(evaluateCondition({ ref: "steps.failed.output.data.ok", eq: true }, ctx)).toBe(false);
    expect(evaluateCondition({ not: { ref: "steps.failed.output.data.ok" } }, ctx)).toBe(true);
  });
});

describe("conditions keep a missing operand (a comparison never becomes a truthiness test)", () => {
  it("a condition step's operand that reaches nothing stays in the config as missing", () => {
    const resolved = resolveStepConfig(
      "condition",
      { condition: { ref: "input.name", matches: "{{ steps.failed.output.data.pattern }}" } },
      ctx,
    ) as { condition: Record<string, unknown> };
    expect(Object.keys(resolved.condition)).toEqual(["ref", "matches"]);
    expect(resolved.condition.matches).toBeUndefined();
    expect(STEP_CATALOG.condition.config.safeParse(resolved).success).toBe(false);
  });
});

describe("a config that no longer fits its schema once templates are resolved", () => {
  it("is refused in one readable sentence naming the field, not as zod's issue array", () => {
    const resolved = resolveStepConfig(
      "http",
      { method: "{{ input.port }}", url: "{{ input.port }}" },
      { ...ctx, input: { port: 8080 } },
    );
    const r = parseResolvedConfig("http", resolved);
    expect(r).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^config\.method: must be one of/),
      message:
        'The step\'s config is invalid after resolving templates: config.method: must be one of "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", got 8080 (and 1 more problem).',
    });
    expect(r.ok || r.message).not.toMatch(/[[{]|"code"/);
  });
});
