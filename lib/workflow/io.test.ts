import { describe, expect, it } from "vitest";
import { makeLargeDefinition } from "./fixtures";
import {
  detectFormat,
  exportDefinition,
  importDefinition,
  lineColumn,
  locateJsonError,
  MAX_DEFINITION_TEXT_LENGTH,
  parseDefinitionText,
} from "./io";

const definition = {
  schemaVersion: 1,
  name: "Release train",
  description: "Lint: ask, then deploy — “quoted”, yes/no/on/off stay strings",
  inputs: { version: { type: "string", required: true } },
  variables: { answer: "yes", flag: "no", num: "010", multi: "line 1\nline 2" },
  steps: [
    {
      id: "approve",
      type: "approval",
      config: { prompt: "Ship {{ input.version }}?", timeout: "24h" },
    },
    {
      id: "deploy",
      type: "http",
      config: {
        method: "POST",
        url: "https://deploy.example/api",
        body: { v: "{{ input.version }}", n: 1.5, nothing: null, list: [] },
      },
    },
  ],
  edges: [{ from: "approve", to: "deploy", port: "approved", onFailure: "fail_run" }],
  output: "{{ steps.deploy.output.data }}",
  layout: { positions: { approve: { x: 0, y: 0 } } },
};

describe("export and import round trip", () => {
  it.each(["json", "yaml"] as const)("%s round-trips exactly", (format) => {
    const text = exportDefinition(definition, format);
    expect(text.endsWith("\n")).toBe(true);
    const parsed = parseDefinitionText(text, format);
    expect(parsed).toEqual({ ok: true, format, value: definition });
    const imported = importDefinition(text);
    expect(imported.ok).toBe(true);
    expect(imported.format).toBe(format);
  });

  it("round-trips a generated 1,000-step definition through YAML", () => {
    const big = makeLargeDefinition(1000);
    const parsed = parseDefinitionText(exportDefinition(big, "yaml"), "yaml");
    expect(parsed.ok && parsed.value).toEqual(big);
  });

  it("can drop the layout", () => {
    expect(exportDefinition(definition, "json", { includeLayout: false })).not.toContain(
      "positions",
    );
  });

  it("YAML output is readable block style and quotes templates", () => {
    const yaml = exportDefinition(definition, "yaml");
    expect(yaml).toContain("schemaVersion: 1\nname: Release train\n");
    expect(yaml).toMatch(/prompt: "?Ship \{\{ input.version \}\}\?"?/);
    expect(yaml).toMatch(/output: "\{\{ steps.deploy.output.data \}\}"/);
  });

  it("refuses to export non-JSON values", () => {
    expect(() => exportDefinition({ a: new Date() }, "json")).toThrow(TypeError);
    expect(() => exportDefinition([], "yaml")).toThrow(TypeError);
  });
});

describe("syntax errors carry line and column", () => {
  it.each([
    ['{\n  "name": "x",\n  "steps": [\n}', 4, 1, /expected a value/],
    ['{\n  "name": "x",\n}', 3, 1, /no trailing comma/],
    ["{ 'name': 1 }", 1, 3, /double-quoted key/],
    ['{"a": tru}', 1, 7, /expected a value/],
    ['{"a": "line\nbreak"}', 1, 12, /control character/],
    ['{"a": 1} x', 1, 10, /expected the end of the text/],
    ['{"a": [1, 2,]}', 1, 13, /no trailing comma/],
    ['{"a": "\\x"}', 1, 8, /invalid escape/],
  ])("JSON %j → line %d, column %d", (text, line, column, message) => {
    const result = parseDefinitionText(text, "json");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: "INVALID_JSON", line, column });
      expect(result.error.message).toMatch(message);
      expect(result.error.message).toContain(`line ${line}, column ${column}`);
    }
  });

  it.each([
    ["name: x\nsteps: [\n", 3],
    ["name: x\nname: y\n", 2],
    ["name: x\n  bad: indent\n", 1],
    ["a: !!js/function 'x'\n", 1],
  ])("YAML %j → error on line %d", (text, line) => {
    const result = parseDefinitionText(text, "yaml");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("INVALID_YAML");
      expect(result.error.line).toBe(line);
      expect(result.error.message).toMatch(/^Invalid YAML at line \d+, column \d+: /);
    }
  });

  it("caps YAML alias expansion (billion laughs)", () => {
    const lol = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
    ].join("\n");
    const result = parseDefinitionText(lol, "yaml");
    expect(result.ok).toBe(false);
  });

  it("refuses empty and oversized text", () => {
    expect(parseDefinitionText("   ")).toMatchObject({ ok: false, error: { code: "EMPTY_TEXT" } });
    expect(parseDefinitionText(" ".repeat(MAX_DEFINITION_TEXT_LENGTH + 1))).toMatchObject({
      ok: false,
      error: { code: "TEXT_TOO_LARGE" },
    });
  });

  it("an import with a syntax error reports it and no validation issues", () => {
    const result = importDefinition("{ nope");
    expect(result.ok).toBe(false);
    expect(result.syntaxError?.code).toBe("INVALID_JSON");
    expect(result.issues).toEqual([]);
  });

  it("an import of valid syntax but a bad definition reports validation issues", () => {
    const result = importDefinition(
      "schemaVersion: 1\nname: x\nsteps:\n  - id: a\n    type: nope\n",
    );
    expect(result.ok).toBe(false);
    expect(result.issues[0]!.code).toBe("UNKNOWN_STEP_TYPE");
  });

  it("keeps a __proto__ key from JSON or YAML as data and the validator refuses it", () => {
    for (const text of [
      '{"schemaVersion":1,"name":"x","steps":[],"__proto__":{"polluted":true}}',
      "schemaVersion: 1\nname: x\nsteps: []\n__proto__:\n  polluted: true\n",
    ]) {
      const result = importDefinition(text);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(result.issues.map((i) => i.code)).toContain("FORBIDDEN_KEY");
    }
  });
});

describe("helpers", () => {
  it("detectFormat", () => {
    expect(detectFormat('  {"a":1}')).toBe("json");
    expect(detectFormat("a: 1")).toBe("yaml");
  });

  it("lineColumn is 1-based", () => {
    expect(lineColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });

  it("locateJsonError survives absurd nesting", () => {
    expect(locateJsonError("[".repeat(100_000)).message).toMatch(/too deep/);
  });
});
