/**
 * Definition-level edits behind the visual editor: connection rules, rename, clipboard, insert
 * and delete. Pure functions over the authoring shape (what the person wrote, defaults omitted):
 * every operation returns a new definition and leaves untouched parts exactly as written, so the
 * JSON view shows only the edit. Refusals explain themselves (`{ ok: false, reason }`).
 *
 * Levels: a definition's steps and each loop body's steps are separate graphs ("levels"); step
 * ids are unique across all of them (docs/workflow-language.md §3), so an id names its level.
 */
import { defaultPortOf, portsOf, STEP_CATALOG } from "../catalog";
import { isPlainObject } from "../json";
import { effectiveEdges } from "../normalize";
import { isStepType, type EdgeFailurePolicy, type EdgeInput, type StepInput } from "../steps";

/**
 * A definition as the editor holds it: the authoring shape of lib/workflow/definition.ts
 * (`WorkflowDefinitionInput`) before validation, so any JSON object — a draft may be mid-edit
 * and invalid. Every edit in this module takes and returns one.
 */
export type Definition = Record<string, unknown>;
/** A path into the definition document, e.g. ["steps", 2, "config", "url"]. */
export type DocPath = readonly (string | number)[];
/** A canvas position (layout.positions). */
export interface XY {
  readonly x: number;
  readonly y: number;
}

export type Refusal = { readonly ok: false; readonly reason: string };
export type EditResult<T> = ({ readonly ok: true } & T) | Refusal;

export const refuse = (reason: string): Refusal => ({ ok: false, reason });

// ---------------------------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------------------------

export interface GraphDraft {
  readonly steps: readonly StepInput[];
  readonly edges?: readonly EdgeInput[] | undefined;
}

/** One graph: the top level (`loopPath` empty) or a loop body (the chain of loop ids above it). */
export interface Level extends GraphDraft {
  readonly loopPath: readonly string[];
}

/** A loop step's body (steps + edges), when it has one. */
export function loopBodyOf(step: StepInput): GraphDraft | undefined {
  if (step.type !== "loop" || !isPlainObject(step.config)) return undefined;
  const body = step.config.body;
  return isPlainObject(body) && Array.isArray(body.steps) ? (body as GraphDraft) : undefined;
}

/** Every level, top first, then loop bodies depth-first in array order. */
export function levelsOf(definition: GraphDraft): Level[] {
  const out: Level[] = [];
  const walk = (graph: GraphDraft, loopPath: readonly string[]) => {
    out.push({ steps: graph.steps, edges: graph.edges, loopPath });
    for (const step of graph.steps) {
      const body = loopBodyOf(step);
      if (body) walk(body, [...loopPath, step.id]);
    }
  };
  walk(definition, []);
  return out;
}

/** The level holding step `id`, if any. */
export function levelOf(definition: GraphDraft, id: string): Level | undefined {
  return levelsOf(definition).find((level) => level.steps.some((s) => s.id === id));
}

export function stepIn(level: Level, id: string): StepInput {
  return level.steps.find((s) => s.id === id)!;
}

/** Replaces steps/edges of an object, dropping `edges` when undefined (implicit order). */
export function setGraph<T extends object>(
  obj: T,
  steps: readonly StepInput[],
  edges: readonly EdgeInput[] | undefined,
): T {
  const out: Record<string, unknown> = { ...obj, steps };
  if (edges === undefined) delete out.edges;
  else out.edges = edges;
  return out as T;
}

/** Applies `update` to one level (found by its loop path) and rebuilds the definition around it. */
export function updateLevel<T extends GraphDraft>(
  definition: T,
  loopPath: readonly string[],
  update: (level: GraphDraft) => GraphDraft,
): T {
  if (loopPath.length === 0) {
    const next = update(definition);
    return setGraph(definition, next.steps, next.edges);
  }
  const [loopId, ...rest] = loopPath;
  return setGraph(
    definition,
    definition.steps.map((step) => {
      const body = step.id === loopId ? loopBodyOf(step) : undefined;
      if (!body) return step;
      const config = step.config as Record<string, unknown>;
      return { ...step, config: { ...config, body: updateLevel(body, rest, update) } } as StepInput;
    }),
    definition.edges,
  );
}

export function describeLevel(level: Level): string {
  const loop = level.loopPath[level.loopPath.length - 1];
  return loop === undefined ? "at the top level" : `in the body of loop "${loop}"`;
}

/** Ports an edge may leave a step of this type from: the catalog's ports plus `error`; none for `return`. */
export function outputPortsOf(type: string): readonly string[] {
  if (!isStepType(type) || STEP_CATALOG[type].defaultPort === null) return [];
  return portsOf(type);
}

export function listWords(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? "none")
    : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

export const sameEdge = (
  a: { from: string; port?: string; to: string },
  b: { from: string; port?: string; to: string },
) => a.from === b.from && a.to === b.to && a.port === b.port;

/** An authored edge with defaults left out: the port only when it is not the source's primary one. */
export function writeEdge(
  edge: { from: string; to: string; port: string; onFailure?: EdgeFailurePolicy },
  sourceType: string,
): EdgeInput {
  return {
    from: edge.from,
    to: edge.to,
    ...(edge.port !== defaultPortOf(sourceType) ? { port: edge.port } : {}),
    ...(edge.onFailure && edge.onFailure !== "skip" ? { onFailure: edge.onFailure } : {}),
  };
}

export interface ResolvedEdge {
  readonly from: string;
  readonly to: string;
  readonly port: string;
  readonly onFailure: EdgeFailurePolicy;
}

/** normalize.ts `effectiveEdges` over authored edges: ports and onFailure filled, or the implicit chain. */
export function resolvedEdges(level: GraphDraft): ResolvedEdge[] {
  const edges = level.edges?.map((e) => ({ ...e, onFailure: e.onFailure ?? "skip" }));
  return effectiveEdges(level.steps, edges) as ResolvedEdge[];
}

/** The level's edges written out: the explicit list, or the array-order chain it implies. */
export function materializedEdges(level: GraphDraft): EdgeInput[] {
  if (level.edges) return [...level.edges];
  const types = new Map(level.steps.map((s) => [s.id, s.type]));
  return resolvedEdges({ steps: level.steps }).map((e) => writeEdge(e, types.get(e.from) ?? ""));
}
