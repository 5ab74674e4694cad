import { describe, expect, it } from "vitest";
import { InputSpec } from "./definition";
import { resolveRunInput } from "./inputs";

const inputs = {
  version: InputSpec.parse({ type: "string", required: true, description: "semver" }),
  count: InputSpec.parse({ type: "number", default: 1 }),
  env: InputSpec.parse({ type: "string", enum: ["staging", "prod"], default: "staging" }),
  tags: InputSpec.parse({ type: "array" }),
  options: InputSpec.parse({ type: "object" }),
  dryRun: InputSpec.parse({ type: "boolean" }),
};

describe("resolveRunInput", () => {
  it("applies defaults and keeps given values", () => {
    expect(resolveRunInput(inputs, { version: "1.0.0", tags: ["a"], dryRun: false })).toEqual({
      ok: true,
      value: { version: "1.0.0", count: 1, env: "staging", tags: ["a"], dryRun: false },
    });
  });

  it("treats null as not given", () => {
    expect(resolveRunInput(inputs, { version: "1", count: null })).toMatchObject({
      ok: true,
      value: { count: 1 },
    });
  });

  it("reports every problem with the input's name", () => {
    const result = resolveRunInput(inputs, {
      count: "3",
      env: "dev",
      tags: "a",
      options: [],
      verison: "x",
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues).toEqual([
        {
          name: "verison",
          message:
            'Unknown input "verison"; this workflow takes version, count, env, tags, options, dryRun. Did you mean "version"?',
        },
        { name: "version", message: 'Input "version" is required (semver).' },
        { name: "count", message: 'Input "count" must be a number, got "3".' },
        { name: "env", message: 'Input "env" must be one of "staging", "prod", got "dev".' },
        { name: "tags", message: 'Input "tags" must be an array, got "a".' },
        { name: "options", message: 'Input "options" must be an object, got [].' },
      ]);
    }
  });

  it("refuses a non-object input and non-JSON values", () => {
    expect(resolveRunInput(inputs, "x").ok).toBe(false);
    expect(resolveRunInput(inputs, { version: "1", count: Number.NaN }).ok).toBe(false);
    expect(resolveRunInput(inputs, { version: "1", options: { d: new Date() } }).ok).toBe(false);
  });

  it("accepts no input when nothing is required", () => {
    expect(resolveRunInput({}, undefined)).toEqual({ ok: true, value: {} });
  });
});
