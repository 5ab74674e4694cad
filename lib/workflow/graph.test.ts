import { describe, expect, it } from "vitest";
import {
  buildGraph,
  computeAncestry,
  GraphError,
  pathFromRoot,
  reachFromRoots,
  rootSteps,
  unreachableSteps,
  waitsFor,
} from "./graph";
import { buildRunnableGraph } from "./graph-cycles";
import { findCycles } from "./graph-cycles";

const s = (id: string, type = "transform", when?: unknown) => ({
  id,
  type,
  ...(when ? { when } : {}),
});

describe("buildGraph", () => {
  //   c ──(true)──> a ──> r (return)      (no edges: array order, primary ports)
  it("chains steps in array order through each type's primary port", () => {
    const g = buildGraph({
      steps: [s("c", "condition"), s("a", "approval"), s("l", "loop"), s("r", "return")],
    });
    expect(g.implicitEdges).toBe(true);
    expect(g.edges.map((e) => `${e.from}-${e.port}->${e.to}`)).toEqual([
      "c-true->a",
      "a-approved->l",
      "l-done->r",
    ]);
  });

  it("keeps explicit edges, resolves default ports and drops edges to unknown steps", () => {
    const g = buildGraph({
      steps: [s("c", "condition"), s("x")],
      edges: [
        { from: "c", to: "x" },
        { from: "c", to: "ghost" },
      ],
    });
    expect(g.edges).toEqual([{ from: "c", to: "x", port: "true", onFailure: "skip", index: 0 }]);
  });

  it("`edges: []` makes every step a root", () => {
    expect(rootSteps(buildGraph({ steps: [s("a"), s("b")], edges: [] }))).toEqual(["a", "b"]);
  });

  //   b ──> a ; when of c references a      → b, then the earliest ready step each time: a, c, d
  it("orders topologically, breaking ties by array order, with when-dependencies", () => {
    const g = buildGraph({
      steps: [s("c", "transform", { ref: "steps.a.output.data" }), s("a"), s("b"), s("d")],
      edges: [{ from: "b", to: "a" }],
    });
    expect(g.order).toEqual(["b", "a", "c", "d"]);
    expect(waitsFor(g, "c")).toEqual(["a"]);
    expect(g.isAcyclic).toBe(true);
  });

  it("ignores when references to steps outside the graph and to itself", () => {
    const g = buildGraph({
      steps: [
        s("a", "transform", { all: [{ ref: "steps.outer.output" }, { ref: "steps.a.status" }] }),
      ],
    });
    expect(g.whenDeps.get("a")).toEqual([]);
  });
});

describe("cycles", () => {
  //   a ──> b ──> c ──> a      d ──> d
  it("finds one concrete cycle per strongly connected component", () => {
    const g = buildGraph({
      steps: [s("a"), s("b"), s("c"), s("d")],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
        { from: "d", to: "d" },
      ],
    });
    expect(g.isAcyclic).toBe(false);
    expect(findCycles(g).map((c) => c.steps)).toEqual(
      expect.arrayContaining([["a", "b", "c"], ["d"]]),
    );
    expect(findCycles(g)).toHaveLength(2);
  });

  it("buildRunnableGraph refuses a cyclic graph and names the cycle", () => {
    expect(() =>
      buildRunnableGraph({
        steps: [s("a"), s("b")],
        edges: [
          { from: "a", to: "b" },
          { from: "b", to: "a" },
        ],
      }),
    ).toThrow(new GraphError("The workflow graph has a cycle: a → b → a."));
  });

  it("handles a 1,000-step cycle without recursion limits", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `s${i}`);
    const edges = ids.map((id, i) => ({ from: id, to: ids[(i + 1) % ids.length]! }));
    const cycles = findCycles(buildGraph({ steps: ids.map((id) => s(id)), edges }));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.steps).toHaveLength(1000);
  });

  it("reports when-dependencies as cycle links", () => {
    const g = buildGraph({
      steps: [s("a", "transform", { ref: "steps.b.output" }), s("b")],
      edges: [{ from: "a", to: "b" }],
    });
    expect(findCycles(g)[0]!.links.map((l) => l.via)).toEqual(expect.arrayContaining([0, "when"]));
  });
});

describe("ancestry and reachability", () => {
  //   a ──> b ──> d
  //   └───> c
  const g = buildGraph({
    steps: [s("a"), s("b"), s("c"), s("d")],
    edges: [
      { from: "a", to: "b" },
      { from: "a", to: "c" },
      { from: "b", to: "d" },
    ],
  });

  it("answers 'is upstream' over edges and when-dependencies", () => {
    const ancestry = computeAncestry(g);
    expect(ancestry.isUpstream("a", "d")).toBe(true);
    expect(ancestry.isUpstream("c", "d")).toBe(false);
    expect(ancestry.isUpstream("d", "a")).toBe(false);
    expect(ancestry.isUpstream("nope", "a")).toBe(false);
  });

  it("scales to 1,000-step chains", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `s${i}`);
    const chain = buildGraph({ steps: ids.map((id) => s(id)) });
    const ancestry = computeAncestry(chain);
    expect(ancestry.isUpstream("s0", "s999")).toBe(true);
    expect(ancestry.isUpstream("s999", "s0")).toBe(false);
  });

  it("finds steps reachable only through a cycle or a return", () => {
    expect(unreachableSteps(g)).toEqual([]);
    const cyc = buildGraph({
      steps: [s("a"), s("b"), s("c")],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "a" },
        { from: "b", to: "c" },
      ],
    });
    expect(unreachableSteps(cyc)).toEqual(["a", "b", "c"]);
    const ret = buildGraph({ steps: [s("r", "return"), s("x")], edges: [{ from: "r", to: "x" }] });
    expect(unreachableSteps(ret)).toEqual(["x"]);
  });
});

describe("reachFromRoots", () => {
  //   a ──▶ b ──▶ d        c ──▶ d         (edge b→d blocked; r is a return: r→e never fires)
  //   r ──▶ e
  it("walks from every root over unblocked edges, recording a shortest path", () => {
    const g = buildGraph({
      steps: [s("a"), s("b"), s("c"), s("d"), s("r", "return"), s("e")],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "d" },
        { from: "c", to: "d" },
        { from: "r", to: "e" },
      ],
    });
    const reached = reachFromRoots(g, (e) => e.from === "b" && e.to === "d");
    expect([...reached.keys()]).toEqual(["a", "c", "r", "b", "d"]);
    expect(pathFromRoot(reached, "d").map((e) => `${e.from}->${e.to}`)).toEqual(["c->d"]);
    expect(pathFromRoot(reached, "b").map((e) => `${e.from}->${e.to}`)).toEqual(["a->b"]);
    expect(pathFromRoot(reached, "a")).toEqual([]);
    expect(reached.has("e")).toBe(false);
  });
});
