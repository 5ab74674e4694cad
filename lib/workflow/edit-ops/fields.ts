/**
 * The inspector's edits of the authoring-shape definition: set one path, leave every other part
 * exactly as written (same key order, same untouched values), so the JSON view shows only the
 * edit. Graph-aware edits (rename, connection rules) are in the sibling files; this file adds the per-field edits, edge port / failure policy edits and the path of a step in the
 * document (loop bodies included). Pure, unit-tested.
 */
import { defaultPortOf } from "../catalog";
import { isPlainObject } from "../json";
import type { EdgeFailurePolicy, EdgeInput, StepInput } from "../steps";
import {
  levelOf,
  outputPortsOf,
  refuse,
  resolvedEdges,
  type Definition,
  type DocPath,
  type EditResult,
  type Level,
} from "./levels";

export function getAt(root: unknown, path: DocPath): unknown {
  let at = root;
  for (const key of path) {
    if (Array.isArray(at) && typeof key === "number") at = at[key];
    else if (isPlainObject(at) && typeof key === "string" && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `root` with `value` at `path` — `undefined` removes the key. Existing keys keep their place,
 * new ones go last, missing parents are created as objects. With `pruneFrom`, objects below
 * that depth left empty by a removal are removed too (`retry: {}` disappears with its last
 * field). No change → the same object back, so callers can skip no-op edits.
 */
export function setAt<T>(root: T, path: DocPath, value: unknown, pruneFrom?: number): T {
  if (path.length === 0) return (value === undefined ? root : value) as T;
  if (sameJson(getAt(root, path), value) && (value !== undefined || hasPath(root, path)))
    return root;
  if (value === undefined && !hasPath(root, path)) return root;
  return write(root, path, 0, value, pruneFrom) as T;
}

function hasPath(root: unknown, path: DocPath): boolean {
  const parent = getAt(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  return Array.isArray(parent)
    ? typeof key === "number" && key < parent.length
    : isPlainObject(parent) && Object.hasOwn(parent, String(key));
}

function write(
  node: unknown,
  path: DocPath,
  depth: number,
  value: unknown,
  pruneFrom: number | undefined,
): unknown {
  const key = path[depth]!;
  const last = depth === path.length - 1;
  if (Array.isArray(node) && typeof key === "number") {
    const copy = [...node];
    if (last) {
      if (value === undefined) copy.splice(key, 1);
      else copy[key] = value;
    } else copy[key] = write(copy[key], path, depth + 1, value, pruneFrom);
    return copy;
  }
  const obj: Record<string, unknown> = isPlainObject(node) ? { ...node } : {};
  const name = String(key);
  const child = last ? value : write(obj[name], path, depth + 1, value, pruneFrom);
  const prune =
    !last &&
    value === undefined &&
    pruneFrom !== undefined &&
    depth + 1 >= pruneFrom &&
    isPlainObject(child) &&
    Object.keys(child).length === 0;
  if (child === undefined || prune) delete obj[name];
  else obj[name] = child;
  return obj;
}

// ---------------------------------------------------------------------------------------------
// Where things are
// ---------------------------------------------------------------------------------------------

function stepsOf(holder: unknown): StepInput[] {
  return isPlainObject(holder) && Array.isArray(holder.steps) ? (holder.steps as StepInput[]) : [];
}

/** Path of the object holding a level's `steps`/`edges`: [] or […, "config", "body"]. */
export function levelPath(
  definition: Definition,
  loopPath: readonly string[],
): DocPath | undefined {
  let path: DocPath = [];
  for (const loopId of loopPath) {
    const index = stepsOf(getAt(definition, path)).findIndex((s) => s.id === loopId);
    if (index < 0) return undefined;
    path = [...path, "steps", index, "config", "body"];
  }
  return path;
}

/** Path of step `id` in the document, loop bodies included (ids are unique definition-wide). */
export function stepPath(definition: Definition, id: string): DocPath | undefined {
  const level = levelOf(asGraph(definition), id);
  if (!level) return undefined;
  const base = levelPath(definition, level.loopPath);
  if (!base) return undefined;
  return [...base, "steps", level.steps.findIndex((s) => s.id === id)];
}

export function asGraph(definition: Definition): { steps: StepInput[]; edges?: EdgeInput[] } {
  return {
    steps: stepsOf(definition),
    ...(Array.isArray(definition.edges) ? { edges: definition.edges as EdgeInput[] } : {}),
  };
}

export function findStep(definition: Definition, id: string): StepInput | undefined {
  const path = stepPath(definition, id);
  const step = path ? getAt(definition, path) : undefined;
  return isPlainObject(step) ? (step as unknown as StepInput) : undefined;
}

/** Sets a field of step `id` (`rel` relative to the step); emptied sub-objects are removed. */
export function editStep(
  definition: Definition,
  id: string,
  rel: DocPath,
  value: unknown,
): Definition {
  const path = stepPath(definition, id);
  if (!path) return definition;
  return setAt(definition, [...path, ...rel], value, path.length + 1);
}

// ---------------------------------------------------------------------------------------------
// Edges
// ---------------------------------------------------------------------------------------------

export interface EdgeRef {
  readonly from: string;
  readonly port: string;
  readonly to: string;
}

interface LocatedEdge {
  level: Level;
  levelAt: DocPath;
  sourceType: string;
  /** The level's edges as written, or the implicit chain written out (`{ from, to }` each). */
  edges: EdgeInput[];
  index: number;
  implicit: boolean;
}

function locateEdge(definition: Definition, edge: EdgeRef): EditResult<LocatedEdge> {
  const level = levelOf(asGraph(definition), edge.from);
  const levelAt = level && levelPath(definition, level.loopPath);
  if (!level || !levelAt) return refuse(`There is no step "${edge.from}".`);
  const sourceType = level.steps.find((s) => s.id === edge.from)!.type;
  const implicit = level.edges === undefined;
  // The chain has default ports and policies only, so each implicit edge is written { from, to }.
  const edges: EdgeInput[] = implicit
    ? resolvedEdges(level).map((e) => ({ from: e.from, to: e.to }))
    : [...level.edges!];
  const index = edges.findIndex(
    (e) =>
      e.from === edge.from &&
      e.to === edge.to &&
      (e.port ?? defaultPortOf(sourceType)) === edge.port,
  );
  if (index < 0)
    return refuse(`There is no edge from "${edge.from}" (${edge.port}) to "${edge.to}".`);
  return { ok: true, level, levelAt, sourceType, edges, index, implicit };
}

function replaceEdge(definition: Definition, at: LocatedEdge, next: EdgeInput): Definition {
  const edges = at.edges.map((e, i) => (i === at.index ? next : e));
  return setAt(definition, [...at.levelAt, "edges"], edges);
}

/**
 * Moves an edge to another port of its source. Refused when the source type has no such port
 * or the same (from, port, to) edge exists. A level in implicit array order is written out as
 * explicit edges first (the chain's edges, unchanged, plus this one on its new port).
 */
export function setEdgePort(
  definition: Definition,
  edge: EdgeRef,
  port: string,
): EditResult<{ definition: Definition; edge: EdgeRef }> {
  const found = locateEdge(definition, edge);
  if (!found.ok) return found;
  if (port === edge.port) return { ok: true, definition, edge };
  const ports = outputPortsOf(found.sourceType);
  if (!ports.includes(port))
    return refuse(
      `${found.sourceType} steps have ports ${ports.join(", ") || "none"}; "${edge.from}" has no port "${port}".`,
    );
  const primary = defaultPortOf(found.sourceType);
  if (
    found.edges.some(
      (e) => e.from === edge.from && e.to === edge.to && (e.port ?? primary) === port,
    )
  )
    return refuse(`There is already an edge from "${edge.from}" (${port}) to "${edge.to}".`);
  const old = found.edges[found.index]!;
  const next: EdgeInput = { ...old, port };
  if (port === primary) delete next.port; // authoring shape: the primary port is implied
  return {
    ok: true,
    definition: replaceEdge(definition, found, next),
    edge: { ...edge, port },
  };
}

/** Sets an edge's `onFailure` (`skip`, the default, is written by leaving the key out). */
export function setEdgeFailure(
  definition: Definition,
  edge: EdgeRef,
  policy: EdgeFailurePolicy,
): EditResult<{ definition: Definition }> {
  const found = locateEdge(definition, edge);
  if (!found.ok) return found;
  const old = found.edges[found.index]!;
  if ((old.onFailure ?? "skip") === policy) return { ok: true, definition };
  const next: EdgeInput = { ...old, onFailure: policy };
  if (policy === "skip") delete next.onFailure;
  return { ok: true, definition: replaceEdge(definition, found, next) };
}

/** The edge as the inspector shows it: its policy and whether it is part of an implicit chain. */
export function edgeInfo(
  definition: Definition,
  edge: EdgeRef,
):
  | {
      found: true;
      sourceType: string;
      ports: readonly string[];
      onFailure: EdgeFailurePolicy;
      implicit: boolean;
      /** Index in the level's `edges` (for issue paths), -1 when implicit. */
      index: number;
      levelAt: DocPath;
    }
  | { found: false; reason: string } {
  const at = locateEdge(definition, edge);
  if (!at.ok) return { found: false, reason: at.reason };
  return {
    found: true,
    sourceType: at.sourceType,
    ports: outputPortsOf(at.sourceType),
    onFailure: at.edges[at.index]!.onFailure ?? "skip",
    implicit: at.implicit,
    index: at.implicit ? -1 : at.index,
    levelAt: at.levelAt,
  };
}

// ---------------------------------------------------------------------------------------------
// Records edited as rows (inputs, variables)
// ---------------------------------------------------------------------------------------------

/** Renames a key of the record at `path`, keeping its place; refused when the name is taken. */
export function renameKey(
  definition: Definition,
  path: DocPath,
  from: string,
  to: string,
): EditResult<{ definition: Definition }> {
  const record = getAt(definition, path);
  if (!isPlainObject(record) || !Object.hasOwn(record, from))
    return refuse(`There is no "${from}" here.`);
  if (from === to) return { ok: true, definition };
  if (Object.hasOwn(record, to)) return refuse(`"${to}" already exists.`);
  const renamed = Object.fromEntries(
    Object.entries(record).map(([k, v]) => [k === from ? to : k, v] as const),
  );
  return { ok: true, definition: setAt(definition, path, renamed) };
}

/** A name not yet used in the record: `base`, `base_2`, … */
export function freshKey(record: unknown, base: string): string {
  const taken = isPlainObject(record) ? record : {};
  if (!Object.hasOwn(taken, base)) return base;
  for (let n = 2; ; n++) if (!Object.hasOwn(taken, `${base}_${n}`)) return `${base}_${n}`;
}
