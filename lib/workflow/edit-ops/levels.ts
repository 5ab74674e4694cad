/**
 * Definition-level edits behind the visual editor: connection rules, rename, clipboard, insert
 * and delete. Pure functions over the authoring shape (what the person wrote, defaults omitted):
 * every operation returns a new definition and leaves untouched parts exactly as written, so the
 * JSON view shows only the edit. Refusals explain themselves (`{ ok: false, reason }`).
 *
 * Levels: a definition's steps and each loop body's steps are separate graphs ("levels"); step
 * ids are unique across all of them (docs/workflow-language.md §3), so an id names its level.
 */
import { defaultPortOf, portsOf, STEP_CATALOG } from "./catalog";
import { buildGraph, type WorkflowGraph } from "./graph";
import { isPlainObject } from "./json";
import { effectiveEdges } from "./normalize";
import { STEP_ID_MAX_LENGTH, STEP_ID_PATTERN } from "./primitives";
import { definitionReferences, forEachStep, renameStep, RenameError } from "./refs";
import {
  isStepType,
  type EdgeFailurePolicy,
  type EdgeInput,
  type StepInput,
  type StepType,
} from "./steps";
import type { Location } from "./templates";

export type Refusal = { readonly ok: false; readonly reason: string };
export type EditResult<T> = ({ readonly ok: true } & T) | Refusal;

const refuse = (reason: string): Refusal => ({ ok: false, reason });

// ---------------------------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------------------------

interface GraphDraft {
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

function findStep(level: Level, id: string): StepInput {
  return level.steps.find((s) => s.id === id)!;
}

/** Replaces steps/edges of an object, dropping `edges` when undefined (implicit order). */
function setGraph<T extends object>(
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
function updateLevel<T extends GraphDraft>(
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

function describeLevel(level: Level): string {
  const loop = level.loopPath[level.loopPath.length - 1];
  return loop === undefined ? "at the top level" : `in the body of loop "${loop}"`;
}

/** Ports an edge may leave a step of this type from: the catalog's ports plus `error`; none for `return`. */
export function outputPortsOf(type: string): readonly string[] {
  if (!isStepType(type) || STEP_CATALOG[type].defaultPort === null) return [];
  return portsOf(type);
}

function listWords(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? "none")
    : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const sameEdge = (
  a: { from: string; port?: string; to: string },
  b: { from: string; port?: string; to: string },
) => a.from === b.from && a.to === b.to && a.port === b.port;

/** An authored edge with defaults left out: the port only when it is not the source's primary one. */
function writeEdge(
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
function materializedEdges(level: GraphDraft): EdgeInput[] {
  if (level.edges) return [...level.edges];
  const types = new Map(level.steps.map((s) => [s.id, s.type]));
  return resolvedEdges({ steps: level.steps }).map((e) => writeEdge(e, types.get(e.from) ?? ""));
}

// ---------------------------------------------------------------------------------------------
// Connection rules
// ---------------------------------------------------------------------------------------------

export interface ConnectionRequest {
  readonly from: string;
  readonly to: string;
  /** Defaults to the source type's primary port. */
  readonly port?: string;
  readonly onFailure?: EdgeFailurePolicy;
}

/**
 * Whether an edge `from --port--> to` may be added, and why not: unknown steps, a loop boundary,
 * a `return` source, a port the source type does not have, a self-loop, a duplicate, or a cycle
 * (over edges and `when` dependencies, named step by step).
 */
export function canConnect(
  definition: GraphDraft,
  request: ConnectionRequest,
): { ok: true } | Refusal {
  const { from, to } = request;
  const sourceLevel = levelOf(definition, from);
  const targetLevel = levelOf(definition, to);
  if (!sourceLevel) return refuse(`There is no step "${from}".`);
  if (!targetLevel) return refuse(`There is no step "${to}".`);
  if (sourceLevel.loopPath.join("/") !== targetLevel.loopPath.join("/")) {
    return refuse(
      `"${from}" is ${describeLevel(sourceLevel)} and "${to}" is ${describeLevel(targetLevel)}; edges cannot cross a loop boundary.`,
    );
  }
  const level = sourceLevel;
  const source = findStep(level, from);
  if (source.type === "return")
    return refuse(
      `"${from}" is a return step: it ends the run${level.loopPath.length ? " iteration" : ""}, so no edge can leave it.`,
    );
  const ports = outputPortsOf(source.type);
  const port = request.port ?? defaultPortOf(source.type);
  if (!ports.includes(port))
    return refuse(
      `${source.type} steps have ports ${listWords(ports)}; "${from}" has no port "${port}".`,
    );
  if (from === to) return refuse(`A step cannot connect to itself ("${from}" → "${from}").`);
  const edges = resolvedEdges(level);
  if (edges.some((e) => sameEdge(e, { from, port, to })))
    return refuse(`There is already an edge from "${from}" (${port}) to "${to}".`);
  const graph = buildGraph({ steps: level.steps, edges: [...edges, { from, to, port }] });
  if (!graph.isAcyclic) {
    const back = dependencyPath(graph, to, from);
    if (back)
      return refuse(
        `Connecting "${from}" to "${to}" would create a cycle: ${[from, ...back].map((id) => `"${id}"`).join(" → ")}.`,
      );
  }
  return { ok: true };
}

/**
 * A shortest dependency path `start → … → goal` (edges and `when` references) in a graph that
 * graph.ts has already found cyclic: only the message needs it, detection stays in graph.ts.
 */
function dependencyPath(graph: WorkflowGraph, start: string, goal: string): string[] | undefined {
  const next = new Map<string, string[]>(
    graph.ids.map((id) => [id, (graph.outgoing.get(id) ?? []).map((e) => e.to)]),
  );
  for (const [id, deps] of graph.whenDeps) for (const dep of deps) next.get(dep)?.push(id);
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (id === goal) {
      const path: string[] = [];
      for (let at: string | null = id; at !== null; at = previous.get(at) ?? null) path.unshift(at);
      return path;
    }
    for (const to of next.get(id) ?? []) {
      if (previous.has(to)) continue;
      previous.set(to, id);
      queue.push(to);
    }
  }
  return undefined;
}

/** Adds the edge when `canConnect` allows it; an implicit array-order chain is written out first. */
export function connectSteps<T extends GraphDraft>(
  definition: T,
  request: ConnectionRequest,
): EditResult<{ definition: T }> {
  const check = canConnect(definition, request);
  if (!check.ok) return check;
  const level = levelOf(definition, request.from)!;
  const source = findStep(level, request.from);
  const port = request.port ?? defaultPortOf(source.type);
  const edge = writeEdge(
    {
      from: request.from,
      to: request.to,
      port,
      ...(request.onFailure ? { onFailure: request.onFailure } : {}),
    },
    source.type,
  );
  return {
    ok: true,
    definition: updateLevel(definition, level.loopPath, (graph) => ({
      steps: graph.steps,
      edges: [...materializedEdges(graph), edge],
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Rename
// ---------------------------------------------------------------------------------------------

/**
 * refs.ts `renameStep` (edges, templates, condition refs, `output`, loop bodies, layout) as a
 * result instead of an exception, for the inspector's inline message.
 */
export function tryRenameStep<T>(
  definition: T,
  from: string,
  to: string,
): EditResult<{ definition: T }> {
  try {
    return { ok: true, definition: renameStep(definition, from, to) };
  } catch (error) {
    if (error instanceof RenameError) return refuse(error.message);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Ids and starter configs
// ---------------------------------------------------------------------------------------------

/** Every step id in the definition, loop bodies included. */
export function stepIdsOf(definition: unknown): Set<string> {
  const ids = new Set<string>();
  forEachStep(definition, (step) => {
    if (typeof step.id === "string") ids.add(step.id);
  });
  return ids;
}

/** `base` if free, else `base_2`, `base_3`, … (a trailing `_<n>` of `base` is replaced, not stacked). */
export function freshStepId(base: string, taken: ReadonlySet<string>): string {
  const isValid = STEP_ID_PATTERN.test(base) && base.length <= STEP_ID_MAX_LENGTH;
  if (isValid && !taken.has(base)) return base;
  let stem = base
    .replace(/_\d+$/, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_");
  if (!/^[a-z]/.test(stem)) stem = `step_${stem}`;
  stem = stem.slice(0, STEP_ID_MAX_LENGTH - 5);
  if (!isValid && !taken.has(stem)) return stem;
  for (let n = 2; ; n++) if (!taken.has(`${stem}_${n}`)) return `${stem}_${n}`;
}

type ConfigInput<T extends StepType> = Extract<StepInput, { type: T }>["config"];

/**
 * A small valid config per type for a step added from the palette: the catalog has defaults but
 * no examples, and most types have required fields. A test parses each against the catalog.
 * `freshId` names the steps a loop's starter body needs (ids are unique definition-wide).
 */
export function starterConfig<T extends StepType>(
  type: T,
  freshId: (base: string) => string = (b) => b,
): ConfigInput<T> {
  const configs: { [K in StepType]: () => ConfigInput<K> } = {
    transform: () => ({ value: "{{ lastOutput.data }}" }),
    condition: () => ({ condition: { ref: "lastOutput.data" } }),
    http: () => ({ method: "GET", url: "https://api.example.com/" }),
    script: () => ({ command: "echo hello" }),
    code: () => ({ source: "export default function (input, ctx) {\n  return input;\n}\n" }),
    llm: () => ({ prompt: "Summarize: {{ lastOutput.data }}" }),
    agent: () => ({ goal: "Describe what the agent must achieve." }),
    approval: () => ({ prompt: "Approve?" }),
    delay: () => ({ duration: "1m" }),
    wait_for_event: () => ({ event: "example.event", timeout: "1h" }),
    emit_event: () => ({ event: "example.event", data: {} }),
    loop: () => ({
      items: [],
      body: {
        steps: [{ id: freshId("item"), type: "transform", config: { value: "{{ loop.item }}" } }],
      },
    }),
    subworkflow: () => ({ workflow: "other-workflow" }),
    notify: () => ({
      channel: "webhook",
      target: "https://hooks.example.com/notify",
      message: "{{ lastOutput.data }}",
    }),
    propose_change: () => ({
      summary: "Describe the change.",
      patch: [{ op: "test", path: "/schemaVersion", value: 1 }],
    }),
    return: () => ({ value: "{{ lastOutput.data }}" }),
    task: () => ({ instructions: "Describe the work.", assignee: { roles: ["editor"] } }),
    tool: () => ({ server: "my-server", tool: "tool_name", arguments: {} }),
  };
  return configs[type]() as ConfigInput<T>;
}

// ---------------------------------------------------------------------------------------------
// Insert
// ---------------------------------------------------------------------------------------------

export interface InsertOptions {
  /** The port of `afterId` to leave from (default: its primary port). */
  readonly port?: string;
}

/**
 * A new step of `type` for `definition`: a fresh id (unique across every level) and the type's
 * starter config, whose own generated ids (e.g. a loop body's first step) are fresh too.
 */
export function newStep(definition: unknown, type: StepType): { id: string; step: StepInput } {
  const taken = stepIdsOf(definition);
  const claim = (base: string) => {
    const id = freshStepId(base, taken);
    taken.add(id);
    return id;
  };
  const id = claim(type);
  return { id, step: { id, type, config: starterConfig(type, claim) } as StepInput };
}

/**
 * Adds a step of `type` after `afterId` ("press Enter to add after the selected node"): wired
 * `after → new`, and `after`'s outgoing edges on that port now leave from the new step, so the
 * step lands inside a chain. In an implicit array-order level the step is simply placed after
 * `afterId` (the chain does the wiring, and the level stays implicit). `afterId` null appends
 * an unconnected step at the top level (in implicit order that joins the end of the chain).
 */
export function insertStepAfter<T extends GraphDraft>(
  definition: T,
  afterId: string | null,
  type: StepType,
  options: InsertOptions = {},
): EditResult<{ definition: T; id: string }> {
  const { id, step } = newStep(definition, type);
  if (afterId === null) {
    return {
      ok: true,
      id,
      definition: updateLevel(definition, [], (g) => ({
        steps: [...g.steps, step],
        edges: g.edges,
      })),
    };
  }
  const level = levelOf(definition, afterId);
  if (!level) return refuse(`There is no step "${afterId}".`);
  const after = findStep(level, afterId);
  const port = options.port ?? defaultPortOf(after.type);
  if (after.type === "return")
    return refuse(`"${afterId}" is a return step: it ends the run, so nothing can follow it.`);
  if (!outputPortsOf(after.type).includes(port))
    return refuse(
      `${after.type} steps have ports ${listWords(outputPortsOf(after.type))}; "${afterId}" has no port "${port}".`,
    );
  const index = level.steps.indexOf(after);
  const steps = [...level.steps.slice(0, index + 1), step, ...level.steps.slice(index + 1)];
  if (!level.edges && port === defaultPortOf(after.type)) {
    return {
      ok: true,
      id,
      definition: updateLevel(definition, level.loopPath, () => ({ steps, edges: undefined })),
    };
  }
  const types = new Map(level.steps.map((s) => [s.id, s.type]));
  const canLeaveNew = outputPortsOf(type).length > 0;
  const edges = materializedEdges(level).map((edge) => {
    const edgePort = edge.port ?? defaultPortOf(types.get(edge.from) ?? "");
    if (edge.from !== afterId || edgePort !== port || !canLeaveNew) return edge;
    const moved: EdgeInput = { ...edge, from: id };
    delete moved.port; // now leaves the new step's primary port
    return moved;
  });
  const wired = [...edges, writeEdge({ from: afterId, to: id, port }, after.type)];
  return {
    ok: true,
    id,
    definition: updateLevel(definition, level.loopPath, () => ({ steps, edges: wired })),
  };
}

// ---------------------------------------------------------------------------------------------
// Delete
// ---------------------------------------------------------------------------------------------

export interface DanglingReference {
  /** The step making the reference, or null for the workflow `output`. */
  readonly stepId: string | null;
  /** The deleted step it refers to. */
  readonly target: string;
  /** Where, relative to the step (e.g. ["config", "url"]) or the definition (["output"]). */
  readonly location: Location;
  /** The reference as written, e.g. "{{ steps.fetch.output.data }}". */
  readonly text: string;
}

/**
 * Removes steps (a loop takes its body with it) and their edges, plus their layout positions;
 * returns the references that now point nowhere, for the validation panel. Edges are not
 * bridged: in explicit graphs the gap is the author's to close (implicit chains close themselves).
 */
export function deleteSteps<T extends GraphDraft & { layout?: unknown }>(
  definition: T,
  ids: readonly string[],
): { definition: T; removed: string[]; dangling: DanglingReference[] } {
  const removed = new Set<string>();
  for (const level of levelsOf(definition)) {
    for (const step of level.steps) {
      if (!ids.includes(step.id)) continue;
      removed.add(step.id);
      const body = loopBodyOf(step);
      if (body) forEachStep(body, (s) => typeof s.id === "string" && removed.add(s.id));
    }
  }
  let next = definition;
  for (const level of levelsOf(definition)) {
    if (!level.steps.some((s) => removed.has(s.id))) continue;
    if (level.loopPath.some((loopId) => removed.has(loopId))) continue;
    next = updateLevel(next, level.loopPath, (g) => ({
      steps: g.steps.filter((s) => !removed.has(s.id)),
      edges: g.edges?.filter((e) => !removed.has(e.from) && !removed.has(e.to)),
    }));
  }
  next = withoutPositions(next, removed);
  return { definition: next, removed: [...removed], dangling: danglingReferences(next, removed) };
}

function withoutPositions<T extends { layout?: unknown }>(
  definition: T,
  ids: ReadonlySet<string>,
): T {
  const layout = definition.layout;
  if (!isPlainObject(layout) || !isPlainObject(layout.positions)) return definition;
  const positions = Object.fromEntries(
    Object.entries(layout.positions).filter(([id]) => !ids.has(id)),
  );
  return { ...definition, layout: { ...layout, positions } };
}

/** References from the definition to any of `targets` (steps that do not exist). */
export function danglingReferences(
  definition: unknown,
  targets: ReadonlySet<string>,
): DanglingReference[] {
  const refs = definitionReferences(definition);
  const out: DanglingReference[] = [];
  const collect = (stepId: string | null, references: (typeof refs.output)["references"]) => {
    for (const { reference, location } of references) {
      if (reference.root === "steps" && targets.has(reference.stepId))
        out.push({
          stepId,
          target: reference.stepId,
          location,
          text: `{{ ${reference.path.source} }}`,
        });
    }
  };
  for (const [stepId, summary] of refs.steps) collect(stepId, summary.references);
  collect(null, refs.output.references);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Clipboard
// ---------------------------------------------------------------------------------------------

/**
 * What copy puts on the clipboard: definition JSON in the shape of a loop body (steps + the
 * edges among them), so it pastes into another workflow, a loop body or the JSON view.
 */
export interface StepClipboard {
  readonly steps: StepInput[];
  readonly edges: EdgeInput[];
}

/** Copies the steps (in definition order, loop bodies included) and the edges among them. */
export function copySteps(definition: GraphDraft, stepIds: readonly string[]): StepClipboard {
  const wanted = new Set(stepIds);
  const steps: StepInput[] = [];
  const edges: EdgeInput[] = [];
  for (const level of levelsOf(definition)) {
    if (level.loopPath.some((loopId) => wanted.has(loopId))) continue; // copied with its loop
    const picked = level.steps.filter((s) => wanted.has(s.id));
    if (picked.length === 0) continue;
    steps.push(...picked);
    edges.push(...materializedEdges(level).filter((e) => wanted.has(e.from) && wanted.has(e.to)));
  }
  return structuredClone({ steps, edges });
}

/** Reads a clipboard payload (parsed JSON); a single step object is accepted too. */
export function readClipboard(value: unknown): StepClipboard | undefined {
  if (isPlainObject(value) && Array.isArray(value.steps) && value.steps.every(isStepLike)) {
    const edges = Array.isArray(value.edges) ? value.edges.filter(isEdgeLike) : [];
    return { steps: value.steps as StepInput[], edges: edges as EdgeInput[] };
  }
  if (isStepLike(value)) return { steps: [value as StepInput], edges: [] };
  return undefined;
}

function isStepLike(value: unknown): boolean {
  return isPlainObject(value) && typeof value.id === "string" && typeof value.type === "string";
}

function isEdgeLike(value: unknown): boolean {
  return isPlainObject(value) && typeof value.from === "string" && typeof value.to === "string";
}

export interface PasteOptions {
  /** Paste into this loop's body instead of the top level. */
  readonly into?: string;
}

/**
 * Adds the clipboard's steps: ids that collide (with the definition or each other, loop bodies
 * included) get a fresh suffix (`shape` → `shape_2`) and references inside the pasted steps
 * follow; edges to steps that were not pasted are dropped. The pasted steps connect only among
 * themselves, so an implicit-order level is written out as explicit edges first.
 */
export function pasteSteps<T extends GraphDraft>(
  definition: T,
  payload: StepClipboard,
  options: PasteOptions = {},
): EditResult<{ definition: T; ids: string[]; renamed: Record<string, string> }> {
  const clip = readClipboard(payload);
  if (!clip || clip.steps.length === 0) return refuse("The clipboard holds no steps.");
  let loopPath: readonly string[] = [];
  if (options.into !== undefined) {
    const level = levelOf(definition, options.into);
    const loop = level ? findStep(level, options.into) : undefined;
    if (!level || !loop || !loopBodyOf(loop))
      return refuse(`There is no loop with a body called "${options.into}".`);
    loopPath = [...level.loopPath, options.into];
  }
  const taken = stepIdsOf(definition);
  const clipIds = stepIdsOf(clip);
  const reserved = new Set([...taken, ...clipIds]);
  let pasted: GraphDraft = {
    steps: structuredClone(clip.steps),
    edges: structuredClone(clip.edges),
  };
  const renamed: Record<string, string> = {};
  for (const id of clipIds) {
    if (!taken.has(id) && STEP_ID_PATTERN.test(id)) continue;
    const fresh = freshStepId(id, reserved);
    reserved.add(fresh);
    const result = tryRenameStep(pasted, id, fresh);
    if (!result.ok) return result;
    pasted = result.definition;
    renamed[id] = fresh;
  }
  const ids = new Set(pasted.steps.map((s) => s.id));
  const edges = (pasted.edges ?? []).filter((e) => ids.has(e.from) && ids.has(e.to));
  return {
    ok: true,
    ids: [...ids],
    renamed,
    definition: updateLevel(definition, loopPath, (g) => ({
      steps: [...g.steps, ...pasted.steps],
      edges: [...materializedEdges(g), ...edges],
    })),
  };
}

/** Copy + paste into the same level as the first of the steps. */
export function duplicateSteps<T extends GraphDraft>(
  definition: T,
  stepIds: readonly string[],
): EditResult<{ definition: T; ids: string[]; renamed: Record<string, string> }> {
  const level = stepIds.length ? levelOf(definition, stepIds[0]!) : undefined;
  if (!level)
    return refuse(stepIds.length ? `There is no step "${stepIds[0]}".` : "No steps selected.");
  const loopId = level.loopPath[level.loopPath.length - 1];
  return pasteSteps(
    definition,
    copySteps(definition, stepIds),
    loopId === undefined ? {} : { into: loopId },
  );
}
