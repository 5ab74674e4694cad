/**
 * Pure mapping from a definition snapshot (+ step statuses) to positioned graph nodes and edges.
 * Stored editor positions win; otherwise steps are placed in layers by their longest distance from
 * a root along the edges (cycles are broken by ignoring back edges), ordered by array position.
 */

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

export const LAYER_GAP = 110;
export const NODE_GAP = 220;

export function edgesOf(input: Pick<LayoutInput, "steps" | "edges">): GraphEdgeInput[] {
  if (input.edges) return [...input.edges];
  return input.steps.slice(1).map((s, i) => ({ from: input.steps[i]!.id, to: s.id }));
}

/** Layer index per step id: 0 for roots, else 1 + the deepest predecessor. */
export function layersOf(
  steps: readonly GraphStepLike[],
  edges: readonly GraphEdgeInput[],
): Map<string, number> {
  const ids = new Set(steps.map((s) => s.id));
  const out = new Map<string, string[]>();
  const indeg = new Map<string, number>(steps.map((s) => [s.id, 0]));
  // Drop back edges found by a DFS in array order, so cycles cannot stall the layering.
  const state = new Map<string, 0 | 1 | 2>();
  const adj = new Map<string, string[]>();
  for (const e of edges) {
    if (!ids.has(e.from) || !ids.has(e.to) || e.from === e.to) continue;
    adj.set(e.from, [...(adj.get(e.from) ?? []), e.to]);
  }
  const kept: [string, string][] = [];
  const visit = (id: string) => {
    state.set(id, 1);
    for (const to of adj.get(id) ?? []) {
      const s = state.get(to) ?? 0;
      if (s === 1) continue; // back edge
      kept.push([id, to]);
      if (s === 0) visit(to);
    }
    state.set(id, 2);
  };
  for (const s of steps) if ((state.get(s.id) ?? 0) === 0) visit(s.id);
  const seen = new Set<string>();
  for (const [from, to] of kept) {
    const key = `${from}\u0000${to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.set(from, [...(out.get(from) ?? []), to]);
    indeg.set(to, (indeg.get(to) ?? 0) + 1);
  }
  const layer = new Map<string, number>(steps.map((s) => [s.id, 0]));
  const queue = steps.filter((s) => indeg.get(s.id) === 0).map((s) => s.id);
  while (queue.length) {
    const id = queue.shift()!;
    for (const to of out.get(id) ?? []) {
      layer.set(to, Math.max(layer.get(to) ?? 0, (layer.get(id) ?? 0) + 1));
      const d = (indeg.get(to) ?? 1) - 1;
      indeg.set(to, d);
      if (d === 0) queue.push(to);
    }
  }
  return layer;
}

export function layoutGraph(input: LayoutInput): { nodes: LaidOutNode[]; edges: LaidOutEdge[] } {
  const edges = edgesOf(input);
  const positions = input.positions ?? {};
  const allPositioned = input.steps.length > 0 && input.steps.every((s) => positions[s.id]);
  const layers = allPositioned ? null : layersOf(input.steps, edges);
  const rowCount = new Map<number, number>();
  const nodes = input.steps.map((s) => {
    let x: number;
    let y: number;
    if (layers) {
      const l = layers.get(s.id) ?? 0;
      const i = rowCount.get(l) ?? 0;
      rowCount.set(l, i + 1);
      x = i * NODE_GAP;
      y = l * LAYER_GAP;
    } else {
      ({ x, y } = positions[s.id]!);
    }
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
