/**
 * The static graph of a definition (or of one loop body): nodes in array order, edges with their
 * ports resolved, `when` dependencies, a deterministic topological order, cycles and ancestry.
 * Works on parsed definitions and, leniently, on raw input (the validator builds a graph even
 * when some steps fail the schema, so all problems are reported at once).
 *
 * Without `edges`, steps form a chain in array order, each implicit edge leaving the previous
 * step's primary port (success; true for condition; approved for approval; done for loop).
 * With `edges: []`, every step is a root and they all start at once.
 */
import { defaultPortOf } from "./catalog";
import { conditionRefs } from "./conditions";
import type { EdgeFailurePolicy } from "./steps";

export interface GraphStepLike {
  readonly id: string;
  readonly type: string;
  readonly when?: unknown;
}

export interface GraphEdgeLike {
  readonly from: string;
  readonly to: string;
  readonly port?: string | undefined;
  readonly onFailure?: EdgeFailurePolicy | undefined;
}

export interface GraphSource<S extends GraphStepLike = GraphStepLike> {
  readonly steps: readonly S[];
  readonly edges?: readonly GraphEdgeLike[] | undefined;
  readonly constraints?: { readonly maxParallel?: number } | undefined;
}

export interface GraphNode<S extends GraphStepLike = GraphStepLike> {
  readonly id: string;
  readonly type: string;
  /** Position in the steps array. */
  readonly index: number;
  readonly step: S;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly port: string;
  readonly onFailure: EdgeFailurePolicy;
  /** Index in the definition's `edges` array; -1 for implicit array-order edges. */
  readonly index: number;
}

export interface WorkflowGraph<S extends GraphStepLike = GraphStepLike> {
  readonly kind: "workflow-graph";
  /** Step ids in array order (first occurrence of each id). */
  readonly ids: readonly string[];
  readonly nodes: ReadonlyMap<string, GraphNode<S>>;
  readonly edges: readonly GraphEdge[];
  readonly incoming: ReadonlyMap<string, readonly GraphEdge[]>;
  readonly outgoing: ReadonlyMap<string, readonly GraphEdge[]>;
  /** Steps each step's `when` references inside this graph: it waits for them. */
  readonly whenDeps: ReadonlyMap<string, readonly string[]>;
  /** Topological order over edges and when-dependencies; ties broken by array order. Steps on a cycle are missing. */
  readonly order: readonly string[];
  readonly isAcyclic: boolean;
  readonly maxParallel: number;
  readonly implicitEdges: boolean;
}

export class GraphError extends Error {
  override readonly name = "GraphError";
}

const DEFAULT_MAX_PARALLEL = 4;

export function buildGraph<S extends GraphStepLike>(source: GraphSource<S>): WorkflowGraph<S> {
  const nodes = new Map<string, GraphNode<S>>();
  source.steps.forEach((step, index) => {
    if (!nodes.has(step.id)) nodes.set(step.id, { id: step.id, type: step.type, index, step });
  });
  const ids = [...nodes.keys()];
  const edges =
    source.edges === undefined ? chainEdges(source.steps) : explicitEdges(source.edges, nodes);
  const incoming = groupBy(ids, edges, (e) => e.to);
  const outgoing = groupBy(ids, edges, (e) => e.from);
  const whenDeps = new Map(ids.map((id) => [id, whenDependencies(nodes.get(id)!.step, nodes)]));
  const order = topologicalOrder(ids, nodes, incoming, whenDeps);
  return {
    kind: "workflow-graph",
    ids,
    nodes,
    edges,
    incoming,
    outgoing,
    whenDeps,
    order,
    isAcyclic: order.length === ids.length,
    maxParallel: source.constraints?.maxParallel ?? DEFAULT_MAX_PARALLEL,
    implicitEdges: source.edges === undefined,
  };
}

function chainEdges(steps: readonly GraphStepLike[]): GraphEdge[] {
  const edges: GraphEdge[] = [];
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1]!;
    edges.push({
      from: from.id,
      to: steps[i]!.id,
      port: defaultPortOf(from.type),
      onFailure: "skip",
      index: -1,
    });
  }
  return edges;
}

function explicitEdges(
  edges: readonly GraphEdgeLike[],
  nodes: ReadonlyMap<string, GraphNode<GraphStepLike>>,
): GraphEdge[] {
  const out: GraphEdge[] = [];
  edges.forEach((edge, index) => {
    const source = nodes.get(edge.from);
    if (!source || !nodes.has(edge.to)) return; // reported by the validator
    out.push({
      from: edge.from,
      to: edge.to,
      port: edge.port ?? defaultPortOf(source.type),
      onFailure: edge.onFailure ?? "skip",
      index,
    });
  });
  return out;
}

function groupBy(
  ids: readonly string[],
  edges: readonly GraphEdge[],
  key: (e: GraphEdge) => string,
): Map<string, GraphEdge[]> {
  const map = new Map<string, GraphEdge[]>(ids.map((id) => [id, []]));
  for (const edge of edges) map.get(key(edge))?.push(edge);
  return map;
}

function whenDependencies(
  step: GraphStepLike,
  nodes: ReadonlyMap<string, GraphNode<GraphStepLike>>,
): string[] {
  if (step.when === undefined) return [];
  return conditionRefs(step.when).steps.filter((id) => id !== step.id && nodes.has(id));
}

/** Kahn's algorithm; among ready steps the earliest in array order goes first (stable output). */
function topologicalOrder(
  ids: readonly string[],
  nodes: ReadonlyMap<string, GraphNode<GraphStepLike>>,
  incoming: ReadonlyMap<string, readonly GraphEdge[]>,
  whenDeps: ReadonlyMap<string, readonly string[]>,
): string[] {
  // Work on positions in `ids` (which is array order), so the heap compares plain numbers.
  const position = new Map(ids.map((id, i) => [id, i]));
  const dependents: number[][] = ids.map(() => []);
  const remaining = new Int32Array(ids.length);
  ids.forEach((id, i) => {
    for (const edge of incoming.get(id) ?? []) {
      dependents[position.get(edge.from)!]!.push(i);
      remaining[i]! += 1;
    }
    for (const dep of whenDeps.get(id) ?? []) {
      dependents[position.get(dep)!]!.push(i);
      remaining[i]! += 1;
    }
  });
  const ready = new MinHeap<number>((a, b) => a - b);
  remaining.forEach((count, i) => {
    if (count === 0) ready.push(i);
  });
  const order: string[] = [];
  for (let i = ready.pop(); i !== undefined; i = ready.pop()) {
    order.push(ids[i]!);
    for (const next of dependents[i]!) {
      remaining[next]! -= 1;
      if (remaining[next] === 0) ready.push(next);
    }
  }
  void nodes;
  return order;
}

/** Sources a step waits for: incoming edge sources (one entry per edge) and when-dependencies. */
function dependenciesOf(
  id: string,
  incoming: ReadonlyMap<string, readonly GraphEdge[]>,
  whenDeps: ReadonlyMap<string, readonly string[]>,
): string[] {
  return [...(incoming.get(id) ?? []).map((e) => e.from), ...(whenDeps.get(id) ?? [])];
}

/** Distinct steps a step waits for before it may start. */
export function waitsFor(graph: WorkflowGraph, id: string): string[] {
  return [...new Set(dependenciesOf(id, graph.incoming, graph.whenDeps))];
}

/**
 * Ancestry over edges and when-dependencies, as bitsets filled in topological order: "is `a`
 * guaranteed to be terminal before `b` starts?" in O(1). Steps on cycles have no ancestry.
 */
export interface Ancestry {
  isUpstream(candidate: string, of: string): boolean;
}

export function computeAncestry(graph: WorkflowGraph): Ancestry {
  const position = new Map(graph.ids.map((id, i) => [id, i]));
  const words = Math.ceil(graph.ids.length / 32) || 1;
  // One flat buffer (row per step) instead of an array per step: far less allocation.
  const bits = new Uint32Array(words * graph.ids.length);
  const done = new Uint8Array(graph.ids.length);
  for (const id of graph.order) {
    const row = position.get(id)! * words;
    for (const dep of waitsFor(graph, id)) {
      const p = position.get(dep)!;
      if (!done[p]) continue;
      const depRow = p * words;
      for (let w = 0; w < words; w++) bits[row + w]! |= bits[depRow + w]!;
      bits[row + (p >>> 5)]! |= 1 << (p & 31);
    }
    done[position.get(id)!] = 1;
  }
  return {
    isUpstream(candidate, of) {
      const p = position.get(candidate);
      const o = position.get(of);
      if (p === undefined || o === undefined || !done[o]) return false;
      return (bits[o * words + (p >>> 5)]! & (1 << (p & 31))) !== 0;
    },
  };
}

/**
 * Steps reachable from a root (a step with no incoming edge) over the edges `isBlocked` lets
 * through, each with the edge it was first reached by (null for a root). Breadth first, roots and
 * edges in array order, so `pathFromRoot` gives a shortest path and the same one every time.
 * Edges out of a `return` step never fire, so they never make their targets reachable.
 */
export function reachFromRoots(
  graph: WorkflowGraph,
  isBlocked: (edge: GraphEdge) => boolean = () => false,
): Map<string, GraphEdge | null> {
  const reached = new Map<string, GraphEdge | null>();
  const queue = rootSteps(graph);
  for (const id of queue) reached.set(id, null);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (graph.nodes.get(id)!.type === "return") continue;
    for (const edge of graph.outgoing.get(id)!) {
      if (reached.has(edge.to) || isBlocked(edge)) continue;
      reached.set(edge.to, edge);
      queue.push(edge.to);
    }
  }
  return reached;
}

/** The edges from a root to `id` that reachFromRoots recorded (empty for a root). */
export function pathFromRoot(
  reached: ReadonlyMap<string, GraphEdge | null>,
  id: string,
): GraphEdge[] {
  const path: GraphEdge[] = [];
  for (let edge = reached.get(id); edge; edge = reached.get(edge.from)) path.push(edge);
  return path.reverse();
}

/**
 * Steps no run can reach: not reachable over edges from a root (a step with no incoming edge).
 * Edges out of a `return` step never fire, so they do not make their targets reachable.
 */
export function unreachableSteps(graph: WorkflowGraph): string[] {
  const reached = reachFromRoots(graph);
  return graph.ids.filter((id) => !reached.has(id));
}

/** Roots: steps with no incoming edge (they start when the run starts, after their when-dependencies). */
export function rootSteps(graph: WorkflowGraph): string[] {
  return graph.ids.filter((id) => graph.incoming.get(id)!.length === 0);
}

/** Small binary heap; the topological sort needs "earliest ready step first" in O(log n). */
class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly compare: (a: T, b: T) => number) {}

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i]!, items[parent]!) >= 0) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.compare(items[l]!, items[m]!) < 0) m = l;
        if (r < items.length && this.compare(items[r]!, items[m]!) < 0) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}
