import { describe, expect, it } from "vitest";
import type { StepInput } from "@/lib/workflow/steps";
import {
  buildEdges,
  buildNodes,
  edgeLabel,
  issueCounts,
  placeBelow,
  reconcileNodes,
  withMeasured,
  type NodeCache,
} from "./canvas-model";
import { toFlow } from "./flow-mapping";

const t = (id: string, value: unknown = 1): StepInput =>
  ({ id, type: "transform", config: { value } }) as StepInput;

//   check ──true──▶ a
//         ──false─▶ b (continue)
const def = {
  steps: [
    { id: "check", type: "condition", config: { condition: { ref: "x" } } } as StepInput,
    t("a"),
    t("b"),
  ],
  edges: [
    { from: "check", to: "a" },
    { from: "check", port: "false", to: "b", onFailure: "continue" as const },
  ],
};

describe("issueCounts / edgeLabel", () => {
  it("counts issues and errors per step", () => {
    const c = issueCounts([
      { stepId: "a", severity: "error" },
      { stepId: "a", severity: "warning" },
      { severity: "error" },
    ]);
    expect(c.get("a")).toEqual({ issues: 2, errors: 1 });
    expect(c.size).toBe(1);
  });

  it("labels non-default ports and non-skip policies", () => {
    const edges = buildEdges(toFlow(def, { positions: {} }));
    expect(edges.map((e) => e.label)).toEqual([undefined, "false · continue"]);
    expect(edges[1]!.className).toContain("ge-edge-continue");
    expect(edgeLabel({ from: "a", port: "error", to: "b", onFailure: "skip" }, "transform")).toBe(
      "error",
    );
  });
});

describe("buildEdges with a cache", () => {
  it("returns the same objects for unchanged edges and rebuilds only the changed one", () => {
    const cache = new Map();
    const first = buildEdges(toFlow(def, { positions: {} }), cache);
    const edited = {
      ...def,
      edges: [def.edges[0]!, { ...def.edges[1]!, onFailure: "fail_run" as const }],
    };
    const second = buildEdges(toFlow(structuredClone(edited), { positions: {} }), cache);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]!.label).toBe("false · fail_run");
    expect(cache.size).toBe(2);
  });
});

describe("buildNodes", () => {
  it("carries a run's statuses onto the nodes and rebuilds only the nodes whose status changed", () => {
    const cache: NodeCache = new Map();
    const flow = toFlow(def, { positions: {} });
    const running = buildNodes(flow, [], issueCounts([]), false, cache, {
      check: "completed",
      a: "running",
    });
    expect(running.map((n) => (n.data as { runStatus?: string }).runStatus)).toEqual([
      "completed",
      "running",
      undefined,
    ]);
    expect(running[1]!.ariaLabel).toContain("running in the run");
    const done = buildNodes(flow, [], issueCounts([]), false, cache, {
      check: "completed",
      a: "completed",
    });
    expect(done[0]).toBe(running[0]);
    expect(done[1]).not.toBe(running[1]);
    expect(done[2]).toBe(running[2]);
  });

  it("reuses unchanged nodes (same objects) and rebuilds the edited one", () => {
    const cache: NodeCache = new Map();
    const flow = toFlow(def, { positions: {} });
    const first = buildNodes(flow, [], issueCounts([]), false, cache);
    const edited = { ...def, steps: [def.steps[0]!, t("a", 2), t("b")] };
    const second = buildNodes(
      toFlow(structuredClone(edited), { positions: {} }),
      [],
      issueCounts([]),
      false,
      cache,
    );
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    const flagged = buildNodes(
      flow,
      [],
      issueCounts([{ stepId: "b", severity: "error" }]),
      false,
      cache,
    );
    expect((flagged[2]!.data as { errors: number }).errors).toBe(1);
  });

  it("adds the level's notes and drops vanished ids from the cache", () => {
    const cache: NodeCache = new Map();
    const nodes = buildNodes(
      toFlow(def, { positions: {} }),
      [{ id: "n1", text: "hi", x: 1, y: 2 }],
      issueCounts([]),
      false,
      cache,
    );
    expect(nodes.map((n) => [n.id, n.type])).toEqual([
      ["check", "condition"],
      ["a", "transform"],
      ["b", "transform"],
      ["note:n1", "note"],
    ]);
    buildNodes(toFlow({ steps: [t("a")] }, { positions: {} }), [], issueCounts([]), false, cache);
    expect([...cache.keys()]).toEqual(["a"]);
  });
});

describe("reconcileNodes", () => {
  it("keeps React Flow's state (selection, size) and identity of untouched nodes", () => {
    const cache: NodeCache = new Map();
    const derived = buildNodes(toFlow(def, { positions: {} }), [], issueCounts([]), false, cache);
    const prev = reconcileNodes([], derived).map((n) =>
      n.id === "a" ? { ...n, selected: true, measured: { width: 180, height: 60 } } : n,
    );
    const again = reconcileNodes(prev, derived);
    expect(again[0]).toBe(prev[0]);
    expect(again[1]!.selected).toBe(true);
    expect(again[1]!.measured).toEqual({ width: 180, height: 60 });
    const picked = reconcileNodes(prev, derived, new Set(["b"]));
    expect(picked.map((n) => n.selected)).toEqual([false, false, true]);
  });

  it("gives a rebuilt node the size React Flow last reported when the previous list lacks it", () => {
    // The render that rebuilds the list can miss a size update still queued at a lower
    // priority; without `measured` React Flow drops the node's handle bounds (edges vanish).
    const cache: NodeCache = new Map();
    const derived = buildNodes(toFlow(def, { positions: {} }), [], issueCounts([]), false, cache);
    const prev = reconcileNodes([], derived);
    expect(prev.every((n) => n.measured === undefined)).toBe(true);
    const sizes = new Map([["b", { width: 180, height: 60 }]]);
    const next = reconcileNodes(prev, derived, undefined, sizes);
    expect(next.find((n) => n.id === "b")!.measured).toEqual({ width: 180, height: 60 });
    expect(next.find((n) => n.id === "a")).toBe(prev.find((n) => n.id === "a"));
    // The last reported size wins over an older one still on the node.
    const held = prev.map((n) =>
      n.id === "b" ? { ...n, measured: { width: 200, height: 80 } } : n,
    );
    expect(
      reconcileNodes(held, derived, undefined, sizes).find((n) => n.id === "b")!.measured,
    ).toEqual({
      width: 180,
      height: 60,
    });
    // A node already carrying that size is kept as it was (no re-render).
    const same = prev.map((n) =>
      n.id === "b" ? { ...n, measured: { width: 180, height: 60 } } : n,
    );
    expect(reconcileNodes(same, derived, undefined, sizes)[1]).toBe(same[1]);
  });

  it("withMeasured fills in reported sizes and keeps the list when nothing is missing", () => {
    const cache: NodeCache = new Map();
    const derived = buildNodes(toFlow(def, { positions: {} }), [], issueCounts([]), false, cache);
    const sizes = new Map([["a", { width: 180, height: 60 }]]);
    const filled = withMeasured(derived, sizes);
    expect(filled).not.toBe(derived);
    expect(filled.find((n) => n.id === "a")!.measured).toEqual({ width: 180, height: 60 });
    expect(filled.find((n) => n.id === "b")).toBe(derived.find((n) => n.id === "b"));
    expect(withMeasured(filled, sizes)).toBe(filled);
  });

  it("places a new step below the one it follows, else below everything", () => {
    expect(placeBelow({ x: 5, y: 10 }, [], 100)).toEqual({ x: 5, y: 110 });
    expect(
      placeBelow(
        undefined,
        [
          { x: 5, y: 10 },
          { x: -5, y: 300 },
        ],
        100,
      ),
    ).toEqual({ x: -5, y: 400 });
    expect(placeBelow(undefined, [], 100)).toEqual({ x: 0, y: 0 });
  });
});
