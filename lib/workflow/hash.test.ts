import { describe, expect, it } from "vitest";
import {
  canonicalDefinition,
  canonicalJson,
  hashDefinition,
  hashNormalizedDefinition,
  hashText,
  isDefinitionHash,
} from "./hash";
import { DefinitionValidationError } from "./issues";
import { canonicalStringify } from "./json";
import { validateDefinition } from "./validate";

const minimal = {
  schemaVersion: 1,
  name: "Hash me",
  steps: [
    { id: "fetch", type: "http", config: { url: "https://api.example.com" } },
    { id: "done", type: "return", config: { value: "{{ steps.fetch.output.data }}" } },
  ],
};

/** Same content, every default spelled out, keys in another order, edges written by hand. */
const explicit = {
  steps: [
    {
      config: {
        allowedDomains: [],
        maxResponseBytes: 1048576,
        timeoutMs: 30000,
        query: {},
        headers: {},
        method: "GET",
        url: "https://api.example.com",
      },
      retry: { backoffMs: 1000, maxAttempts: 1 },
      type: "http",
      id: "fetch",
    },
    {
      type: "return",
      id: "done",
      config: { value: "{{ steps.fetch.output.data }}" },
      retry: { maxAttempts: 1 },
    },
  ],
  edges: [{ onFailure: "skip", port: "success", to: "done", from: "fetch" }],
  timezone: "UTC",
  constraints: {
    overflow: "queue",
    maxConcurrentRuns: 10,
    forbiddenStepTypes: [],
    maxParallel: 4,
    timeoutMs: 3600000,
    maxSteps: 50,
    allowSelfModification: false,
  },
  variables: {},
  inputs: {},
  name: "Hash me",
  schemaVersion: 1,
};

describe("hashDefinition", () => {
  it("has the sha256:<64 hex> form", () => {
    const hash = hashDefinition(minimal);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(isDefinitionHash(hash)).toBe(true);
    expect(isDefinitionHash("sha256:xyz")).toBe(false);
  });

  it("is equal regardless of key order, omitted defaults and an implicit chain written out", () => {
    expect(hashDefinition(explicit)).toBe(hashDefinition(minimal));
    expect(canonicalJson(explicit)).toBe(canonicalJson(minimal));
  });

  it("ignores layout", () => {
    const withLayout = {
      ...minimal,
      layout: { positions: { fetch: { x: 1, y: 2 } }, viewport: { x: 0, y: 0, zoom: 1 } },
    };
    expect(hashDefinition(withLayout)).toBe(hashDefinition(minimal));
    expect(canonicalJson(withLayout)).not.toContain("positions");
  });

  it("changes with any meaningful change", () => {
    const base = hashDefinition(minimal);
    expect(hashDefinition({ ...minimal, name: "Other" })).not.toBe(base);
    expect(hashDefinition({ ...minimal, constraints: { maxParallel: 5 } })).not.toBe(base);
    expect(
      hashDefinition({
        ...minimal,
        steps: [
          { ...minimal.steps[0], config: { url: "https://api.example.com", method: "POST" } },
          minimal.steps[1],
        ],
      }),
    ).not.toBe(base);
    expect(hashDefinition({ ...minimal, edges: [] })).not.toBe(base);
  });

  it("canonical JSON is key-sorted at every level with no whitespace", () => {
    const text = canonicalJson(minimal);
    expect(text).not.toMatch(/\s(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    expect(text.startsWith('{"constraints":{"allowSelfModification":false,')).toBe(true);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([...Object.keys(parsed)].sort());
  });

  it("normalizes loop bodies too (implicit body chains become explicit)", () => {
    const loop = (edges?: unknown) => ({
      schemaVersion: 1,
      name: "L",
      steps: [
        {
          id: "each",
          type: "loop",
          config: {
            items: [1],
            body: {
              steps: [
                { id: "a", type: "transform", config: { value: 1 } },
                { id: "b", type: "transform", config: { value: 2 } },
              ],
              ...(edges ? { edges } : {}),
            },
          },
        },
      ],
    });
    expect(hashDefinition(loop())).toBe(hashDefinition(loop([{ from: "a", to: "b" }])));
    expect(canonicalDefinition(loop()).steps[0]).toMatchObject({
      config: { body: { edges: [{ from: "a", to: "b", port: "success", onFailure: "skip" }] } },
    });
  });

  it("the fast path agrees with the full one for validated definitions", () => {
    const validated = validateDefinition(minimal).definition!;
    expect(hashNormalizedDefinition(validated)).toBe(hashDefinition(minimal));
  });

  it("throws a DefinitionValidationError for input that does not parse", () => {
    expect(() => hashDefinition({ name: "x" })).toThrow(DefinitionValidationError);
  });

  it("hashText matches known sha256 vectors", () => {
    expect(hashText("")).toBe(
      "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(hashText("abc")).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(hashText("é")).toBe(hashText("\u00e9"));
  });
});

describe("canonicalStringify", () => {
  it("sorts keys by code units, drops undefined members, keeps array order", () => {
    expect(
      canonicalStringify({ b: 1, a: [3, 1, { d: undefined, c: "x" }], B: true, é: 1, z: null }),
    ).toBe('{"B":true,"a":[3,1,{"c":"x"}],"b":1,"z":null,"é":1}');
  });

  it("refuses non-JSON values", () => {
    expect(() => canonicalStringify({ a: Number.NaN })).toThrow(/not a JSON number/);
    expect(() => canonicalStringify({ a: new Date() })).toThrow(/not a JSON value/);
  });

  it("keeps a __proto__ member as data", () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    expect(canonicalStringify(input)).toBe('{"__proto__":{"x":1},"a":2}');
  });
});
