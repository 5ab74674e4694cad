/**
 * Pure mapping from a definition snapshot (+ step statuses) to positioned graph nodes and edges.
 * Stored editor positions win; otherwise the steps are laid out top to bottom by dagre (layered
 * Sugiyama layout: ranks, crossing reduction, coordinate assignment), which also breaks cycles.
 * Coordinates are the nodes' top-left corners (React Flow's convention), shifted so the
 * top-left-most node starts at (0, 0).
 */
import dagre from "@dagrejs/dagre";

export interface GraphStepLike {
  readonly id: string;
  readonly type: string;
  readonly name?: string;
}
export interface GraphEdgeInput {
  readonly from: string;
  readonly to: string;
  readonly port?: string;
  /** Carried through to the laid-out edge (e.g. a diff status); layout ignores it. */
  readonly status?: string;
}
export interface LayoutInput {
  readonly steps: readonly GraphStepLike[];
  /** Omitted: the steps run in array order (an implicit chain). */
  readonly edges?: readonly GraphEdgeInput[];
  readonly positions?: Readonly<Record<string, { x: number; y: number }>>;
  /** Status per step id (the latest attempt's). */
  readonly statuses?: Readonly<Record<string, string>>;
}
export interface LaidOutNode {
  readonly id: string;
  readonly type: string;
  readonly label: string;
  readonly status: string;
  readonly x: number;
  readonly y: number;
}
export interface LaidOutEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly label?: string;
  readonly status?: string;
}

/** The box every node is laid out as (the editor's and the run graph's nodes are this wide). */
export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 60;
/** Distance between the tops of two consecutive ranks. */
export const LAYER_GAP = 110;
/** Distance between the left edges of two neighbours in a rank (at least). */
export const NODE_GAP = 220;
/**
 * Network simplex ranks best but grows super-linearly (≈0.9 s for 1,000 nodes on the reference
 * machine); above this size the longest-path ranker keeps opening a large workflow fast.
 */
const SIMPLEX_MAX_NODES = 300;

export function edgesOf(input: Pick<LayoutInput, "steps" | "edges">): GraphEdgeInput[] {
  if (input.edges) return [...input.edges];
  return input.steps.slice(1).map((s, i) => ({ from: input.steps[i]!.id, to: s.id }));
}

/** Top-left positions by step id from dagre; edges to unknown steps and self-loops are ignored. */
export function autoPositions(
  steps: readonly GraphStepLike[],
  edges: readonly GraphEdgeInput[],
): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({
    rankdir: "TB",
    nodesep: NODE_GAP - NODE_WIDTH,
    ranksep: LAYER_GAP - NODE_HEIGHT,
    marginx: 0,
    marginy: 0,
    ranker: steps.length > SIMPLEX_MAX_NODES ? "longest-path" : "network-simplex",
  });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(steps.map((s) => s.id));
  for (const s of steps) g.setNode(s.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  // A plain (non-multi) graph: parallel edges between one pair (true + error) count once.
  for (const e of edges)
    if (ids.has(e.from) && ids.has(e.to) && e.from !== e.to) g.setEdge(e.from, e.to);
  dagre.layout(g);
  let minX = Infinity;
  let minY = Infinity;
  const centres = steps.map((s) => {
    const n = g.node(s.id) as { x: number; y: number };
    minX = Math.min(minX, n.x);
    minY = Math.min(minY, n.y);
    return [s.id, n] as const;
  });
  return new Map(
    centres.map(([id, n]) => [id, { x: Math.round(n.x - minX), y: Math.round(n.y - minY) }]),
  );
}

export function layoutGraph(input: LayoutInput): { nodes: LaidOutNode[]; edges: LaidOutEdge[] } {
  const edges = edgesOf(input);
  const positions = input.positions ?? {};
  const allPositioned = input.steps.length > 0 && input.steps.every((s) => positions[s.id]);
  const auto = allPositioned ? null : autoPositions(input.steps, edges);
  const nodes = input.steps.map((s) => {
    const { x, y } = positions[s.id] ?? auto?.get(s.id) ?? { x: 0, y: 0 };
    return {
      id: s.id,
      type: s.type,
      label: s.name ?? s.id,
      status: input.statuses?.[s.id] ?? "pending",
      x,
      y,
    };
  });
  const ids = new Set(input.steps.map((s) => s.id));
  return {
    nodes,
    edges: edges
      .filter((e) => ids.has(e.from) && ids.has(e.to))
      .map((e, i) => ({
        id: `e${i}:${e.from}->${e.to}`,
        source: e.from,
        target: e.to,
        ...(e.port && e.port !== "success" ? { label: e.port } : {}),
        ...(e.status ? { status: e.status } : {}),
      })),
  };
}

/** Latest status per step id from attempt rows (later rows win; loop iterations map to the loop). */
export function statusesFromAttempts(
  attempts: readonly { stepId: string; path: string; attempt: number; status: string }[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of attempts) if (a.path === a.stepId) out[a.stepId] = a.status;
  return out;
}
