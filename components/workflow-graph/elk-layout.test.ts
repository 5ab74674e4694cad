import { describe, expect, it } from "vitest";
import { STARTERS } from "@/lib/starters";
import { levelsOf, resolvedEdges } from "@/lib/workflow/edit-ops";
import type { StepInput } from "@/lib/workflow/steps";
import { edgeCrossings, segmentsCross } from "./edge-crossings";
import { elkPositions } from "./elk-layout";
import { NODE_HEIGHT, NODE_WIDTH, autoPositions } from "./layout";

type Graph = { steps: StepInput[]; edges?: { from: string; port?: string; to: string }[] };

/** Every level (top level and loop bodies) of every built-in template. */
const templateLevels = STARTERS.flatMap((s) =>
  levelsOf(s.definition as unknown as Graph).map((level) => ({
    name: [s.id, ...level.loopPath].join("/"),
    steps: level.steps,
    edges: resolvedEdges(level),
  })),
);

describe("segmentsCross", () => {
  //  ╲ ╱
  //   ╳     crosses;  edges meeting at a shared handle do not
  //  ╱ ╲
  it("counts a proper intersection, not a shared end point", () => {
    const a = [
      { x: 0, y: 0 },
      { x: 10, y: 10 },
    ] as const;
    expect(
      segmentsCross(a, [
        { x: 10, y: 0 },
        { x: 0, y: 10 },
      ]),
    ).toBe(true);
    expect(
      segmentsCross(a, [
        { x: 0, y: 0 },
        { x: 0, y: 10 },
      ]),
    ).toBe(false);
    expect(
      segmentsCross(a, [
        { x: 20, y: 0 },
        { x: 30, y: 10 },
      ]),
    ).toBe(false);
  });
});

describe("elkPositions", () => {
  //        approve
  //   approved │ rejected       ports left to right on the bottom edge
  //      ╱          ╲
  //   deploy      declined      the approved branch goes left: no crossing
  it.each(templateLevels.map((l) => [l.name, l] as const))(
    "lays out the built-in template %s without edge crossings",
    async (_name, level) => {
      const positions = await elkPositions(level.steps, level.edges);
      expect(edgeCrossings(level.steps, level.edges, positions)).toEqual([]);
      // No two boxes overlap.
      const boxes = [...positions.values()];
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i]!, boxes[j]!];
          const apart =
            a.x + NODE_WIDTH <= b.x ||
            b.x + NODE_WIDTH <= a.x ||
            a.y + NODE_HEIGHT <= b.y ||
            b.y + NODE_HEIGHT <= a.y;
          expect(apart).toBe(true);
        }
      // Every edge points down.
      for (const e of level.edges)
        expect(positions.get(e.to)!.y).toBeGreaterThan(positions.get(e.from)!.y);
    },
  );

  it("dagre, which ignores ports, crosses the release train's approved/rejected edges", () => {
    // Why ELK: the same template through the old layout.
    const crossed = templateLevels.filter(
      (l) => edgeCrossings(l.steps, l.edges, autoPositions(l.steps, l.edges)).length > 0,
    );
    expect(crossed.map((l) => l.name)).not.toEqual([]);
  });

  //   a ──(true)──► b     a condition's two ports, the false branch listed first in the steps:
  //     ╲(false)──► c     ELK still puts b (true, the left port) on the left
  it("orders a branch's children by the port they hang from", async () => {
    const steps = [
      { id: "a", type: "condition" },
      { id: "c", type: "transform" },
      { id: "b", type: "transform" },
    ];
    const edges = [
      { from: "a", port: "false", to: "c" },
      { from: "a", port: "true", to: "b" },
    ];
    const p = await elkPositions(steps, edges);
    expect(p.get("b")!.x).toBeLessThan(p.get("c")!.x);
    expect(edgeCrossings(steps, edges, p)).toEqual([]);
  });
});
