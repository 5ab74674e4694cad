import { describe, expect, it } from "vitest";
import { canonicalDefinitionText, prettySorted } from "./canonical-json";

describe("prettySorted", () => {
  it("matches JSON.stringify indentation with keys sorted at every depth", () => {
    const v = { b: [1, { d: null, c: "x" }], a: {}, e: [] };
    expect(prettySorted(v)).toBe(
      JSON.stringify({ a: {}, b: [1, { c: "x", d: null }], e: [] }, null, 2),
    );
  });

  it("orders integer-like keys as strings, unlike a JS object", () => {
    expect(prettySorted({ "9": 1, "10": 2 })).toBe('{\n  "10": 2,\n  "9": 1\n}');
  });

  it("drops undefined members", () => {
    expect(prettySorted({ a: undefined, b: 1 })).toBe('{\n  "b": 1\n}');
  });
});

describe("canonicalDefinitionText", () => {
  it("writes defaults and the implicit chain out, and drops layout", () => {
    const text = canonicalDefinitionText({
      schemaVersion: 1,
      name: "wf",
      layout: { positions: { a: { x: 1, y: 2 } } },
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
      ],
    });
    const parsed = JSON.parse(text) as { edges: unknown[]; layout?: unknown };
    expect(parsed.layout).toBeUndefined();
    expect(parsed.edges).toHaveLength(1);
    expect(text.startsWith('{\n  "constraints"')).toBe(true);
  });

  it("shows an invalid definition as sorted JSON instead of failing", () => {
    expect(canonicalDefinitionText({ z: 1, a: 2 })).toBe('{\n  "a": 2,\n  "z": 1\n}');
  });
});
