/**
 * From the flow-mapping graph to what the canvas renders, keeping object identity wherever
 * nothing changed: React Flow and the memoized node components re-render only what an edit
 * touched, which is what keeps a 1,000-step workflow responsive.
 */
import type { Edge, Node } from "@xyflow/react";
import { ERROR_PORT, defaultPortOf, isStepType } from "@/lib/workflow/catalog";
import type { FlowGraph, StepEdgeData, XY } from "./flow-mapping";
import { NOTE_PREFIX, type StickyNote } from "@/lib/workflow/edit-ops";
import type { CanvasStepData, NoteData } from "./nodes/step-node";

export interface IssueLike {
  readonly stepId?: string;
  readonly severity: "error" | "warning";
}

export type IssueCounts = ReadonlyMap<string, { issues: number; errors: number }>;

export function issueCounts(issues: readonly IssueLike[]): IssueCounts {
  const out = new Map<string, { issues: number; errors: number }>();
  for (const i of issues) {
    if (i.stepId === undefined) continue;
    const c = out.get(i.stepId) ?? { issues: 0, errors: 0 };
    out.set(i.stepId, {
      issues: c.issues + 1,
      errors: c.errors + (i.severity === "error" ? 1 : 0),
    });
  }
  return out;
}

/** "false", "continue", "error · fail_run": the port unless it is the default, and the policy unless skip. */
export function edgeLabel(data: StepEdgeData, sourceType: string): string | undefined {
  const parts: string[] = [];
  if (data.port !== defaultPortOf(sourceType)) parts.push(data.port);
  if (data.onFailure !== "skip") parts.push(data.onFailure);
  return parts.length ? parts.join(" · ") : undefined;
}

export type CanvasNode = Node<CanvasStepData> | Node<NoteData, "note">;

/** A cache of built nodes keyed by id, reused while their signature is unchanged. */
export type NodeCache = Map<string, { signature: string; node: CanvasNode }>;

/**
 * Nodes for one level: steps (node type = step type, "unknown" for types the catalog lacks)
 * and the level's sticky notes. Unchanged steps come back as the same objects as last time.
 */
export function buildNodes(
  flow: FlowGraph,
  notes: readonly StickyNote[],
  counts: IssueCounts,
  readOnly: boolean,
  cache: NodeCache,
  /** A run's step statuses shown on the nodes ("Open in editor" from a run page). */
  runStatuses: Readonly<Record<string, string>> = {},
): CanvasNode[] {
  const seen = new Set<string>();
  const reuse = (id: string, signature: string, make: () => CanvasNode): CanvasNode => {
    seen.add(id);
    const hit = cache.get(id);
    if (hit && hit.signature === signature) return hit.node;
    const node = make();
    cache.set(id, { signature, node });
    return node;
  };
  const out: CanvasNode[] = flow.nodes.map((n) => {
    const c = counts.get(n.id) ?? { issues: 0, errors: 0 };
    const bodySize = n.data.body?.nodes.length ?? -1;
    const runStatus = runStatuses[n.id];
    const signature = `${JSON.stringify(n.data.step)}|${n.position.x},${n.position.y}|${c.issues}/${c.errors}|${bodySize}|${readOnly}|${runStatus ?? ""}`;
    return reuse(n.id, signature, () => ({
      id: n.id,
      type: isStepType(String(n.type)) ? n.type : "unknown",
      position: n.position,
      data: {
        ...n.data,
        issues: c.issues,
        errors: c.errors,
        readOnly,
        ...(runStatus ? { runStatus } : {}),
      },
      ariaLabel: `Step ${n.id} (${String(n.data.step.type)})${runStatus ? `, ${runStatus} in the run` : ""}${c.issues ? `, ${c.issues} problem${c.issues === 1 ? "" : "s"}` : ""}`,
    }));
  });
  for (const note of notes) {
    const id = `${NOTE_PREFIX}${note.id}`;
    out.push(
      reuse(id, `note|${note.text}|${note.x},${note.y}|${readOnly}`, () => ({
        id,
        type: "note",
        position: { x: note.x, y: note.y },
        data: { text: note.text, readOnly },
        ariaLabel: `Note ${note.text.slice(0, 40)}`,
      })),
    );
  }
  for (const id of cache.keys()) if (!seen.has(id)) cache.delete(id);
  return out;
}

/** Sizes React Flow reported per node id (its `dimensions` changes), kept outside React state. */
export type MeasuredSizes = ReadonlyMap<string, NonNullable<Node["measured"]>>;

/**
 * The next node list given the previous one (which carries React Flow's own state: selection,
 * measured size): a node whose derived data and position did not change is kept as it was; a
 * changed one keeps its selection and size. `select` replaces the selection when given.
 *
 * `sizes` is the last size React Flow reported for each node. A node handed back without
 * `measured` makes React Flow drop its handle bounds, and edges to it stop drawing until it is
 * measured again — which may never happen when its DOM size does not change. `prev` can lack a
 * size that was reported in a lower-priority update the current render skipped, so a rebuilt
 * node takes its size from `sizes` when `prev` has none.
 */
export function reconcileNodes<N extends Node>(
  prev: readonly N[],
  next: readonly N[],
  select?: ReadonlySet<string>,
  sizes?: MeasuredSizes,
): N[] {
  const byId = new Map(prev.map((n) => [n.id, n]));
  return next.map((d) => {
    const p = byId.get(d.id);
    const selected = select ? select.has(d.id) : (p?.selected ?? false);
    const reported = sizes?.get(d.id);
    const measured = reported && !sameSize(reported, p?.measured) ? reported : p?.measured;
    if (
      p &&
      p.measured === measured &&
      p.data === d.data &&
      p.type === d.type &&
      p.position.x === d.position.x &&
      p.position.y === d.position.y &&
      (p.selected ?? false) === selected
    )
      return p;
    return { ...d, selected, ...(measured ? { measured } : {}) };
  });
}

function sameSize(a: Node["measured"], b: Node["measured"]): boolean {
  return a?.width === b?.width && a?.height === b?.height;
}

/**
 * `nodes` with every node's last reported size (see reconcileNodes), for lists React Flow's own
 * changes produce: a selection change applied to a list that missed a size update would hand
 * the node back unmeasured. Returns `nodes` itself when nothing was missing.
 */
export function withMeasured<N extends Node>(nodes: N[], sizes: MeasuredSizes): N[] {
  let out: N[] | undefined;
  nodes.forEach((n, i) => {
    const reported = sizes.get(n.id);
    if (!reported || sameSize(reported, n.measured)) return;
    out ??= nodes.slice();
    out[i] = { ...n, measured: reported };
  });
  return out ?? nodes;
}

export type CanvasEdge = Edge<StepEdgeData>;

/** Edge objects by id with the signature they were built from (see buildEdges). */
export type EdgeCache = Map<string, { signature: string; edge: CanvasEdge }>;

/**
 * React Flow edges for a level. With a cache, an edge whose source type, port, policy and label
 * did not change is the SAME object as last time, so React Flow's memoized edges skip it: adding
 * one step to a 1,000-step graph re-renders a handful of edges, not all of them.
 */
export function buildEdges(flow: FlowGraph, cache?: EdgeCache): CanvasEdge[] {
  const types = new Map(flow.nodes.map((n) => [n.id, String(n.data.step.type)]));
  const seen = new Set<string>();
  const out = flow.edges.map((e) => {
    const data = e.data!;
    const type = types.get(data.from) ?? "";
    const signature = `${type}|${JSON.stringify(data)}`;
    seen.add(e.id);
    const hit = cache?.get(e.id);
    if (hit && hit.signature === signature) return hit.edge;
    const label = edgeLabel(data, type);
    const edge: CanvasEdge = {
      ...e,
      ...(label ? { label } : {}),
      className: [
        "ge-edge",
        data.port === ERROR_PORT ? "ge-edge-error" : "",
        data.onFailure !== "skip" ? `ge-edge-${data.onFailure}` : "",
      ]
        .filter(Boolean)
        .join(" "),
      ariaLabel: `Edge from ${data.from} (${data.port}) to ${data.to}${data.onFailure !== "skip" ? `, on failure ${data.onFailure}` : ""}`,
    };
    cache?.set(e.id, { signature, edge });
    return edge;
  });
  if (cache) for (const id of cache.keys()) if (!seen.has(id)) cache.delete(id);
  return out;
}

/** Edges keep their selection across re-derivations (ids are stable per from/port/to). */
export function reconcileEdges(
  prev: readonly CanvasEdge[],
  next: readonly CanvasEdge[],
  select?: ReadonlySet<string>,
): CanvasEdge[] {
  const byId = new Map(prev.map((e) => [e.id, e]));
  return next.map((e) => {
    const before = byId.get(e.id);
    const isSelected = select ? select.has(e.id) : (before?.selected ?? false);
    if (!isSelected) return e;
    // Still selected and unchanged: keep last render's object (no re-render of that edge).
    if (before && before.selected && before.data === e.data && before.label === e.label)
      return before;
    return { ...e, selected: true };
  });
}

/** Where a step added after `after` goes: one layer below it, or below everything. */
export function placeBelow(after: XY | undefined, all: readonly XY[], gap: number): XY {
  if (after) return { x: after.x, y: after.y + gap };
  if (all.length === 0) return { x: 0, y: 0 };
  return { x: Math.min(...all.map((p) => p.x)), y: Math.max(...all.map((p) => p.y)) + gap };
}
