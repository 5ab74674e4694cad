/**
 * Counts edge crossings in a laid-out graph the way the canvas draws it: each edge from its
 * source handle (on the bottom edge, spread by port) to the target's input handle (top centre).
 * Two edges cross when their segments intersect at a point that is not an end of both (edges
 * sharing a handle meet there; that is not a crossing).
 */
import { outputPortsOf } from "@/lib/workflow/edit-ops";
import { NODE_HEIGHT, NODE_WIDTH, type GraphEdgeInput, type GraphStepLike } from "./layout";
import { handleX, type XY } from "./elk-layout";

type Segment = readonly [XY, XY];

const cross = (o: XY, a: XY, b: XY) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
const same = (a: XY, b: XY) => a.x === b.x && a.y === b.y;

/** Proper intersection (interiors cross, or one passes through the other's inside). */
export function segmentsCross([p1, p2]: Segment, [q1, q2]: Segment): boolean {
  if (same(p1, q1) || same(p1, q2) || same(p2, q1) || same(p2, q2)) return false;
  const d1 = cross(q1, q2, p1);
  const d2 = cross(q1, q2, p2);
  const d3 = cross(p1, p2, q1);
  const d4 = cross(p1, p2, q2);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

export function edgeSegments(
  steps: readonly GraphStepLike[],
  edges: readonly GraphEdgeInput[],
  positions: ReadonlyMap<string, XY>,
): { edge: GraphEdgeInput; segment: Segment }[] {
  const types = new Map(steps.map((s) => [s.id, s.type]));
  return edges.flatMap((edge) => {
    const a = positions.get(edge.from);
    const b = positions.get(edge.to);
    if (!a || !b || edge.from === edge.to) return [];
    const ports = outputPortsOf(types.get(edge.from) ?? "");
    const start = { x: a.x + handleX(edge.port ?? "", ports), y: a.y + NODE_HEIGHT };
    const end = { x: b.x + NODE_WIDTH / 2, y: b.y };
    return [{ edge, segment: [start, end] as const }];
  });
}

/** The pairs of edges that cross, as "from:port->to × from:port->to" strings. */
export function edgeCrossings(
  steps: readonly GraphStepLike[],
  edges: readonly GraphEdgeInput[],
  positions: ReadonlyMap<string, XY>,
): string[] {
  const segs = edgeSegments(steps, edges, positions);
  const name = (e: GraphEdgeInput) => `${e.from}:${e.port ?? ""}->${e.to}`;
  const out: string[] = [];
  for (let i = 0; i < segs.length; i++)
    for (let j = i + 1; j < segs.length; j++)
      if (segmentsCross(segs[i]!.segment, segs[j]!.segment))
        out.push(`${name(segs[i]!.edge)} × ${name(segs[j]!.edge)}`);
  return out;
}
