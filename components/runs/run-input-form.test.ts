import { describe, expect, it } from "vitest";
import type { InputSpec } from "@/lib/workflow/definition";
import { controlOf, initialFormValues, parseFormValues } from "./run-input-form";

const inputs: Record<string, InputSpec> = {
  who: { type: "string", required: true, description: "Name" },
  count: { type: "number", required: false, default: 3 },
  dry: { type: "boolean", required: false, default: true },
  env: { type: "string", required: false, enum: ["dev", "prod"], default: "prod" },
  meta: { type: "object", required: false },
  tags: { type: "array", required: true },
};

describe("manual run form model", () => {
  it("picks a control per input", () => {
    expect(Object.fromEntries(Object.entries(inputs).map(([k, s]) => [k, controlOf(s)]))).toEqual({
      who: "text",
      count: "number",
      dry: "checkbox",
      env: "select",
      meta: "json",
      tags: "json",
    });
  });
  it("starts from the defaults", () => {
    expect(initialFormValues(inputs)).toEqual({
      who: "",
      count: "3",
      dry: true,
      env: "1",
      meta: "",
      tags: "",
    });
  });
  it("starts from a previous run's input where given (reruns)", () => {
    expect(
      initialFormValues(inputs, { who: "Ada", count: 7, dry: false, env: "dev", tags: ["a"] }),
    ).toEqual({
      who: "Ada",
      count: "7",
      dry: false,
      env: "0",
      meta: "",
      tags: '[\n  "a"\n]',
    });
  });
  it("reports field-level errors: required, bad number, bad JSON, wrong JSON type", () => {
    const r = parseFormValues(inputs, {
      who: "",
      count: "abc",
      dry: false,
      env: "0",
      meta: "{oops",
      tags: '{"a":1}',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(["count", "meta", "tags", "who"]);
    expect(r.errors.who).toMatch(/required/);
    expect(r.errors.count).toMatch(/not a number/);
    expect(r.errors.meta).toMatch(/Not valid JSON/);
    expect(r.errors.tags).toMatch(/must be an array/);
  });
  it("builds the typed input", () => {
    const r = parseFormValues(inputs, {
      who: "Ada",
      count: "",
      dry: false,
      env: "0",
      meta: '{"k": [1]}',
      tags: '["x"]',
    });
    expect(r).toEqual({
      ok: true,
      value: { who: "Ada", count: 3, dry: false, env: "dev", meta: { k: [1] }, tags: ["x"] },
    });
  });
});
