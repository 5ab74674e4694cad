import { describe, expect, it } from "vitest";
import { LAYER_GAP, NODE_GAP, layersOf, layoutGraph, statusesFromAttempts } from "./layout";

const s = (id: string, type = "transform") => ({ id, type });

describe("layoutGraph", () => {
  it("chains steps in array order when edges are omitted", () => {
    const g = layoutGraph({ steps: [s("a"), s("b"), s("c")] });
    expect(g.nodes.map((n) => [n.id, n.x, n.y])).toEqual([
      ["a", 0, 0],
      ["b", 0, LAYER_GAP],
      ["c", 0, 2 * LAYER_GAP],
    ]);
    expect(g.edges.map((e) => `${e.source}>${e.target}`)).toEqual(["a>b", "b>c"]);
  });

  it("layers a diamond by longest path and spreads siblings", () => {
    const g = layoutGraph({
      steps: [s("a"), s("b"), s("c"), s("d")],
      edges: [
        { from: "a", to: "b" },
        { from: "a", to: "c", port: "false" },
        { from: "b", to: "d" },
        { from: "c", to: "d" },
      ],
    });
    const pos = Object.fromEntries(g.nodes.map((n) => [n.id, [n.x, n.y]]));
    expect(pos).toEqual({
      a: [0, 0],
      b: [0, LAYER_GAP],
      c: [NODE_GAP, LAYER_GAP],
      d: [0, 2 * LAYER_GAP],
    });
    expect(g.edges.find((e) => e.target === "c")?.label).toBe("false");
    expect(g.edges.find((e) => e.target === "b")?.label).toBeUndefined();
  });

  it("[] edges means no dependencies: every step is a root", () => {
    const g = layoutGraph({ steps: [s("a"), s("b")], edges: [] });
    expect(g.nodes.map((n) => n.y)).toEqual([0, 0]);
    expect(g.edges).toEqual([]);
  });

  it("survives cycles and ignores edges to unknown steps", () => {
    const layers = layersOf(
      [s("a"), s("b"), s("c")],
      [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
        { from: "c", to: "ghost" },
      ],
    );
    expect(Object.fromEntries(layers)).toEqual({ a: 0, b: 1, c: 2 });
    const g = layoutGraph({ steps: [s("a")], edges: [{ from: "a", to: "ghost" }] });
    expect(g.edges).toEqual([]);
  });

  it("uses stored positions when every step has one", () => {
    const g = layoutGraph({
      steps: [s("a"), s("b")],
      positions: { a: { x: 5, y: 6 }, b: { x: 7, y: 8 } },
    });
    expect(g.nodes.map((n) => [n.x, n.y])).toEqual([
      [5, 6],
      [7, 8],
    ]);
  });

  it("colours nodes by status (pending by default) and labels with the name", () => {
    const g = layoutGraph({
      steps: [{ id: "a", type: "http", name: "Call API" }, s("b")],
      statuses: { a: "failed" },
    });
    expect(g.nodes.map((n) => [n.label, n.status])).toEqual([
      ["Call API", "failed"],
      ["b", "pending"],
    ]);
  });
});

describe("statusesFromAttempts", () => {
  it("keeps the latest attempt of top-level steps", () => {
    expect(
      statusesFromAttempts([
        { stepId: "a", path: "a", attempt: 1, status: "failed" },
        { stepId: "a", path: "a", attempt: 2, status: "completed" },
        { stepId: "x", path: "each[0].x", attempt: 1, status: "failed" },
      ]),
    ).toEqual({ a: "completed" });
  });
});

describe("layoutGraph edge status", () => {
  //   a ──(added)──▶ b
  it("carries an edge's status through to the laid-out edge", () => {
    const g = layoutGraph({
      steps: [s("a"), s("b")],
      edges: [{ from: "a", to: "b", status: "added" }],
    });
    expect(g.edges).toEqual([{ id: "e0:a->b", source: "a", target: "b", status: "added" }]);
  });
});
