import { describe, expect, it } from "vitest";
import {
  LAYER_GAP,
  NODE_GAP,
  NODE_HEIGHT,
  NODE_WIDTH,
  layoutGraph,
  statusesFromAttempts,
  type GraphEdgeInput,
} from "./layout";

const s = (id: string, type = "transform") => ({ id, type });

type Box = { id: string; x: number; y: number };
const at = (nodes: readonly Box[]) => Object.fromEntries(nodes.map((n) => [n.id, n]));

/** No two node boxes intersect. */
function expectNoOverlap(nodes: readonly Box[]) {
  for (const a of nodes)
    for (const b of nodes) {
      if (a.id >= b.id) continue;
      const apart =
        a.x + NODE_WIDTH <= b.x ||
        b.x + NODE_WIDTH <= a.x ||
        a.y + NODE_HEIGHT <= b.y ||
        b.y + NODE_HEIGHT <= a.y;
      expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
    }
}

/** Every edge points down at least one layer (cycles excepted: pass the back edges to skip). */
function expectDownward(nodes: readonly Box[], edges: readonly GraphEdgeInput[], skip = 0) {
  const pos = at(nodes);
  const upward = edges.filter((e) => pos[e.to]!.y < pos[e.from]!.y + LAYER_GAP);
  expect(upward.length).toBe(skip);
}

describe("layoutGraph", () => {
  //   a
  //   │
  //   b
  //   │
  //   c
  it("chains steps in array order when edges are omitted, one layer each, from (0, 0)", () => {
    const g = layoutGraph({ steps: [s("a"), s("b"), s("c")] });
    expect(g.nodes.map((n) => [n.id, n.x, n.y])).toEqual([
      ["a", 0, 0],
      ["b", 0, LAYER_GAP],
      ["c", 0, 2 * LAYER_GAP],
    ]);
    expect(g.edges.map((e) => `${e.source}>${e.target}`)).toEqual(["a>b", "b>c"]);
  });

  //      a
  //    ╱   ╲
  //   b     c
  //    ╲   ╱
  //      d
  it("layers a diamond: siblings side by side, the join below both, edges downward", () => {
    const edges = [
      { from: "a", to: "b" },
      { from: "a", to: "c", port: "false" },
      { from: "b", to: "d" },
      { from: "c", to: "d" },
    ];
    const g = layoutGraph({ steps: [s("a"), s("b"), s("c"), s("d")], edges });
    const pos = at(g.nodes);
    expect([pos.a!.y, pos.b!.y, pos.c!.y, pos.d!.y]).toEqual([
      0,
      LAYER_GAP,
      LAYER_GAP,
      2 * LAYER_GAP,
    ]);
    expect(Math.abs(pos.b!.x - pos.c!.x)).toBeGreaterThanOrEqual(NODE_GAP);
    // The fork and the join sit between their two branches.
    expect(pos.a!.x).toBeGreaterThan(Math.min(pos.b!.x, pos.c!.x));
    expect(pos.a!.x).toBeLessThan(Math.max(pos.b!.x, pos.c!.x));
    expectDownward(g.nodes, edges);
    expectNoOverlap(g.nodes);
    expect(g.edges.find((e) => e.target === "c")?.label).toBe("false");
    expect(g.edges.find((e) => e.target === "b")?.label).toBeUndefined();
  });

  it("[] edges means no dependencies: every step is a root, side by side", () => {
    const g = layoutGraph({ steps: [s("a"), s("b")], edges: [] });
    expect(g.nodes.map((n) => n.y)).toEqual([0, 0]);
    expectNoOverlap(g.nodes);
    expect(g.edges).toEqual([]);
  });

  //   a ──▶ b ──▶ c
  //   ▲           │
  //   └───────────┘   (c → a is the back edge)
  it("survives cycles (one edge points back up) and ignores edges to unknown steps", () => {
    const edges = [
      { from: "a", to: "b" },
      { from: "b", to: "c" },
      { from: "c", to: "a" },
      { from: "c", to: "ghost" },
    ];
    const g = layoutGraph({ steps: [s("a"), s("b"), s("c")], edges });
    expectDownward(g.nodes, edges.slice(0, 3), 1);
    expectNoOverlap(g.nodes);
    expect(g.edges.map((e) => e.target)).toEqual(["b", "c", "a"]);
    const lone = layoutGraph({ steps: [s("a")], edges: [{ from: "a", to: "ghost" }] });
    expect(lone.edges).toEqual([]);
  });

  //   40 steps, a binary tree: every edge downward, nothing overlapping
  it("lays out a larger tree without overlaps, every edge downward", () => {
    const steps = Array.from({ length: 40 }, (_, i) => s(`s${i}`));
    const edges = steps.slice(1).map((t, i) => ({ from: `s${Math.floor(i / 2)}`, to: t.id }));
    const g = layoutGraph({ steps, edges });
    expectDownward(g.nodes, edges);
    expectNoOverlap(g.nodes);
    expect(Math.min(...g.nodes.map((n) => n.x))).toBe(0);
    expect(Math.min(...g.nodes.map((n) => n.y))).toBe(0);
  });

  it("uses stored positions, laying out only the steps without one", () => {
    const g = layoutGraph({
      steps: [s("a"), s("b")],
      positions: { a: { x: 5, y: 6 }, b: { x: 7, y: 8 } },
    });
    expect(g.nodes.map((n) => [n.x, n.y])).toEqual([
      [5, 6],
      [7, 8],
    ]);
    const partial = layoutGraph({ steps: [s("a"), s("b")], positions: { a: { x: 500, y: 9 } } });
    expect(partial.nodes.map((n) => [n.x, n.y])).toEqual([
      [500, 9],
      [0, LAYER_GAP],
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
