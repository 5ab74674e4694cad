/**
 * Structural diff of two definitions, for the proposal review screen and version history: steps
 * matched by id, edges by (from, port, to), field-level changes as JSON paths with before/after.
 * Both sides are normalized first, so omitted defaults, key order, an implicit array-order chain
 * written out as edges, and `layout` never show up as changes. Step order in the array is not
 * compared (explicit edges define the graph; an implicit chain change shows as edge changes).
 * Loop bodies are diffed recursively (`body`) rather than as one opaque config field.
 */
import type { WorkflowDefinition } from "./definition";
import { deepEqual, isPlainObject } from "./json";
import { effectiveEdges, normalizeDefinition } from "./normalize";
import type { Edge, Step } from "./steps";

export type DiffPath = Array<string | number>;

export interface FieldChange {
  readonly path: DiffPath;
  /** undefined when the field was added. */
  readonly before: unknown;
  /** undefined when the field was removed. */
  readonly after: unknown;
}

export interface EdgeKey {
  readonly from: string;
  readonly port: string;
  readonly to: string;
}

export interface StepChange {
  readonly id: string;
  readonly before: Step;
  readonly after: Step;
  /** Changed fields relative to the step (e.g. ["config", "url"]); loop bodies are in `body`. */
  readonly changes: readonly FieldChange[];
  readonly body?: GraphDiff;
}

export interface EdgeChange {
  readonly key: EdgeKey;
  readonly before: Edge;
  readonly after: Edge;
  readonly changes: readonly FieldChange[];
}

export interface GraphDiff {
  readonly steps: {
    readonly added: readonly Step[];
    readonly removed: readonly Step[];
    readonly changed: readonly StepChange[];
  };
  readonly edges: {
    readonly added: readonly Edge[];
    readonly removed: readonly Edge[];
    readonly changed: readonly EdgeChange[];
  };
}

export interface KeyedDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: ReadonlyArray<{
    readonly name: string;
    readonly changes: readonly FieldChange[];
  }>;
}

export interface DiffSummary {
  readonly stepsAdded: number;
  readonly stepsRemoved: number;
  readonly stepsChanged: number;
  readonly edgesAdded: number;
  readonly edgesRemoved: number;
  readonly edgesChanged: number;
  readonly inputsChanged: number;
  readonly variablesChanged: number;
  readonly constraintsChanged: number;
  readonly metadataChanged: number;
  /** Sum of all of the above. */
  readonly total: number;
}

export interface DefinitionDiff extends GraphDiff {
  /** name, description, timezone, output, schemaVersion. */
  readonly metadata: readonly FieldChange[];
  readonly inputs: KeyedDiff;
  readonly variables: KeyedDiff;
  /** Paths like ["maxParallel"]. */
  readonly constraints: readonly FieldChange[];
  readonly summary: DiffSummary;
  readonly isEmpty: boolean;
}

const METADATA_FIELDS = [
  "schemaVersion",
  "name",
  "description",
  "timezone",
  "repository",
  "output",
] as const;

/** Diffs two definitions (any authoring shape); throws DefinitionValidationError if one does not parse. */
export function diffDefinitions(before: unknown, after: unknown): DefinitionDiff {
  const a = normalizeDefinition(before);
  const b = normalizeDefinition(after);
  const graph = diffGraph(a.steps, a.edges, b.steps, b.edges);
  const metadata = METADATA_FIELDS.flatMap((field) => diffValues(a[field], b[field], [field]));
  const inputs = diffKeyed(a.inputs, b.inputs);
  const variables = diffKeyed(a.variables, b.variables);
  const constraints = diffValues(a.constraints, b.constraints, []);
  const summary = summarize(graph, metadata, inputs, variables, constraints);
  return {
    ...graph,
    metadata,
    inputs,
    variables,
    constraints,
    summary,
    isEmpty: summary.total === 0,
  };
}

export function diffGraph(
  stepsA: readonly Step[],
  edgesA: readonly Edge[] | undefined,
  stepsB: readonly Step[],
  edgesB: readonly Edge[] | undefined,
): GraphDiff {
  const byIdA = new Map(stepsA.map((s) => [s.id, s]));
  const byIdB = new Map(stepsB.map((s) => [s.id, s]));
  const changed: StepChange[] = [];
  for (const step of stepsB) {
    const previous = byIdA.get(step.id);
    if (previous) {
      const change = diffStep(previous, step);
      if (change) changed.push(change);
    }
  }
  return {
    steps: {
      added: stepsB.filter((s) => !byIdA.has(s.id)),
      removed: stepsA.filter((s) => !byIdB.has(s.id)),
      changed,
    },
    edges: diffEdges(effectiveEdges(stepsA, edgesA), effectiveEdges(stepsB, edgesB)),
  };
}

function diffStep(before: Step, after: Step): StepChange | null {
  const bodyA = loopBody(before);
  const bodyB = loopBody(after);
  if (bodyA && bodyB) {
    const body = diffGraph(bodyA.steps, bodyA.edges, bodyB.steps, bodyB.edges);
    const changes = diffValues(withoutBody(before), withoutBody(after), []);
    const bodyChanged =
      body.steps.added.length +
        body.steps.removed.length +
        body.steps.changed.length +
        body.edges.added.length +
        body.edges.removed.length +
        body.edges.changed.length >
      0;
    if (changes.length === 0 && !bodyChanged) return null;
    return { id: after.id, before, after, changes, ...(bodyChanged ? { body } : {}) };
  }
  const changes = diffValues(before, after, []);
  return changes.length === 0 ? null : { id: after.id, before, after, changes };
}

function loopBody(step: Step): { steps: Step[]; edges?: Edge[] | undefined } | undefined {
  return step.type === "loop" ? step.config.body : undefined;
}

function withoutBody(step: Step): unknown {
  if (step.type !== "loop") return step;
  const { body: _body, ...config } = step.config;
  return { ...step, config };
}

export function edgeKey(edge: Edge): EdgeKey {
  return { from: edge.from, port: edge.port ?? "success", to: edge.to };
}

function keyText(edge: Edge): string {
  const key = edgeKey(edge);
  return `${key.from}\u0000${key.port}\u0000${key.to}`;
}

function diffEdges(edgesA: readonly Edge[], edgesB: readonly Edge[]): GraphDiff["edges"] {
  const a = new Map(edgesA.map((e) => [keyText(e), e]));
  const b = new Map(edgesB.map((e) => [keyText(e), e]));
  const changed: EdgeChange[] = [];
  for (const [key, edge] of b) {
    const previous = a.get(key);
    if (!previous) continue;
    const changes = diffValues(previous, edge, []);
    if (changes.length > 0)
      changed.push({ key: edgeKey(edge), before: previous, after: edge, changes });
  }
  return {
    added: [...b].filter(([k]) => !a.has(k)).map(([, e]) => e),
    removed: [...a].filter(([k]) => !b.has(k)).map(([, e]) => e),
    changed,
  };
}

function diffKeyed(a: Record<string, unknown>, b: Record<string, unknown>): KeyedDiff {
  const changed = Object.keys(b)
    .filter((name) => Object.prototype.hasOwnProperty.call(a, name))
    .map((name) => ({ name, changes: diffValues(a[name], b[name], []) }))
    .filter((entry) => entry.changes.length > 0);
  return {
    added: Object.keys(b).filter((n) => !Object.prototype.hasOwnProperty.call(a, n)),
    removed: Object.keys(a).filter((n) => !Object.prototype.hasOwnProperty.call(b, n)),
    changed,
  };
}

/**
 * Field-level differences between two JSON values. Objects recurse per key; arrays of equal
 * length recurse per index; arrays of different length (or differing types) change as a whole.
 */
export function diffValues(before: unknown, after: unknown, path: DiffPath = []): FieldChange[] {
  if (deepEqual(before, after)) return [];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffValues(before[key], after[key], [...path, key]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, i) => diffValues(item, after[i], [...path, i]));
  }
  return [{ path, before, after }];
}

function summarize(
  graph: GraphDiff,
  metadata: readonly FieldChange[],
  inputs: KeyedDiff,
  variables: KeyedDiff,
  constraints: readonly FieldChange[],
): DiffSummary {
  const counts = {
    stepsAdded: graph.steps.added.length,
    stepsRemoved: graph.steps.removed.length,
    stepsChanged: graph.steps.changed.length,
    edgesAdded: graph.edges.added.length,
    edgesRemoved: graph.edges.removed.length,
    edgesChanged: graph.edges.changed.length,
    inputsChanged: inputs.added.length + inputs.removed.length + inputs.changed.length,
    variablesChanged: variables.added.length + variables.removed.length + variables.changed.length,
    constraintsChanged: constraints.length,
    metadataChanged: metadata.length,
  };
  return { ...counts, total: Object.values(counts).reduce((n, c) => n + c, 0) };
}

export type { WorkflowDefinition };
