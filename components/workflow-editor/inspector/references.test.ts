import { describe, expect, it } from "vitest";
import { insertTemplate, referencePaths, templateCompletions, upstreamSteps } from "./references";

//   a ──▶ b ──▶ d          c (when: steps.a) ──▶ d
//         └──▶ loop[ x ──▶ y ]
const def = {
  schemaVersion: 1,
  name: "refs",
  inputs: { who: { type: "string" } },
  variables: { env: "prod" },
  steps: [
    { id: "a", type: "transform", config: { value: 1 } },
    { id: "b", type: "transform", config: { value: 2 } },
    { id: "c", type: "transform", config: { value: 3 }, when: { ref: "steps.a.output.data" } },
    { id: "d", type: "transform", config: { value: 4 } },
    {
      id: "loop",
      type: "loop",
      config: {
        items: [1, 2],
        body: {
          steps: [
            { id: "x", type: "transform", config: { value: "{{ loop.item }}" } },
            { id: "y", type: "transform", config: { value: 0 } },
          ],
        },
      },
    },
  ],
  edges: [
    { from: "a", to: "b" },
    { from: "b", to: "d" },
    { from: "c", to: "d" },
    { from: "b", to: "loop" },
  ],
};

describe("upstream steps", () => {
  it("are ancestors over edges and when-dependencies, never downstream or unrelated steps", () => {
    expect(upstreamSteps(def, "d")).toEqual(["a", "b", "c"]);
    expect(upstreamSteps(def, "c")).toEqual(["a"]);
    expect(upstreamSteps(def, "a")).toEqual([]);
  });

  it("in a body: body ancestors, then the steps upstream of the loop (not the loop)", () => {
    expect(upstreamSteps(def, "y")).toEqual(["x", "a", "b"]);
  });
});

describe("reference paths", () => {
  it("lists upstream outputs, inputs, variables and loop scope; secrets only where allowed", () => {
    const paths = referencePaths(def, "y", { secrets: ["API_TOKEN"] });
    expect(paths).toContain("steps.x.output.data");
    expect(paths).toContain("steps.b.status");
    expect(paths).not.toContain("steps.d.output.data");
    expect(paths).not.toContain("steps.loop.output.data");
    expect(paths).toEqual(expect.arrayContaining(["input.who", "vars.env", "loop.item"]));
    expect(paths).not.toContain("secrets.API_TOKEN");
    expect(referencePaths(def, "a", { secrets: ["API_TOKEN"], allowSecrets: true })).toContain(
      "secrets.API_TOKEN",
    );
    expect(referencePaths(def, "a")).not.toContain("loop.item");
  });
});

describe("loop variables offered in a body", () => {
  const withLoop = (config: Record<string, unknown>): Parameters<typeof referencePaths>[0] => ({
    ...def,
    steps: [
      {
        id: "each",
        type: "loop",
        config: {
          items: [1, 2],
          body: { steps: [{ id: "x", type: "transform", config: { value: 0 } }] },
          ...config,
        },
      },
    ],
    edges: undefined,
  });
  const loopScope = (d: Parameters<typeof referencePaths>[0]) =>
    referencePaths(d, "x").filter((p: string) => p.startsWith("loop."));

  it("item, index and items; state when declared; batch instead of item with a batchSize", () => {
    expect(loopScope(withLoop({}))).toEqual(["loop.item", "loop.index", "loop.items"]);
    expect(loopScope(withLoop({ state: { total: 0 }, stateFrom: "x" }))).toEqual([
      "loop.item",
      "loop.index",
      "loop.items",
      "loop.state",
    ]);
    expect(loopScope(withLoop({ batchSize: 3 }))).toEqual([
      "loop.batch",
      "loop.index",
      "loop.items",
    ]);
  });
});

describe("template completion", () => {
  const paths = ["input.who", "steps.a.output.data", "vars.env"];
  it("completes the open template at the end of the text, as whole values", () => {
    expect(templateCompletions("Hello {{ in", paths)).toEqual(["Hello {{ input.who }}"]);
    expect(templateCompletions("x {{", paths)).toEqual(paths.map((p) => `x {{ ${p} }}`));
    expect(templateCompletions("{{ output", paths)).toEqual(["{{ steps.a.output.data }}"]);
  });
  it("offers nothing outside an open template", () => {
    expect(templateCompletions("plain", paths)).toEqual([]);
    expect(templateCompletions("{{ input.who }} done", paths)).toEqual([]);
  });
  it("inserts at the caret or over the selection", () => {
    expect(insertTemplate("ab", "input.who", { start: 1, end: 1 })).toEqual({
      text: "a{{ input.who }}b",
      caret: 16,
    });
    expect(insertTemplate("aXXb", "vars.env", { start: 1, end: 3 }).text).toBe("a{{ vars.env }}b");
    expect(insertTemplate("a", "vars.env").text).toBe("a{{ vars.env }}");
  });
});
