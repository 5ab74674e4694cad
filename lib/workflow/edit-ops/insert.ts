/** New steps (lib/workflow/edit-ops): fresh ids, starter configs, insert after a step. */
import { defaultPortOf } from "../catalog";
import { STEP_ID_MAX_LENGTH, STEP_ID_PATTERN } from "../primitives";
import { forEachStep } from "../refs";
import type { EdgeInput, StepInput, StepType } from "../steps";
import {
  levelOf,
  listWords,
  materializedEdges,
  outputPortsOf,
  refuse,
  stepIn,
  updateLevel,
  writeEdge,
  type EditResult,
  type GraphDraft,
} from "./levels";

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
  const after = stepIn(level, afterId);
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
