/**
 * What a step may reference, for the inspector's completions and the condition builder's
 * reference picker: inputs, variables, the outputs of steps guaranteed to have finished before
 * it (upstream over edges and `when` dependencies — docs/workflow-language.md
 * REFERENCE_NOT_UPSTREAM), the loop variables inside a body, and secrets where the field allows
 * them. Plus the text edits behind template completion. Pure, unit-tested.
 */
import { defaultPortOf } from "@/lib/workflow/catalog";
import { levelOf } from "@/lib/workflow/edit-ops";
import { buildGraph, computeAncestry } from "@/lib/workflow/graph";
import { isPlainObject } from "@/lib/workflow/json";
import { asGraph, type Definition } from "@/lib/workflow/edit-ops";

/**
 * Steps upstream of `id`: ancestors in its own level and, for a loop body step, the steps
 * upstream of each enclosing loop (never the loop itself, never steps inside other bodies).
 * Nearest first, each level in array order.
 */
export function upstreamSteps(definition: Definition, id: string): string[] {
  const graph = asGraph(definition);
  const out: string[] = [];
  let target: string | undefined = id;
  while (target !== undefined) {
    const level = levelOf(graph, target);
    if (!level) break;
    const levelGraph = buildGraph({ steps: level.steps, edges: level.edges });
    const ancestry = computeAncestry(levelGraph);
    const of = target;
    out.push(...levelGraph.ids.filter((candidate) => ancestry.isUpstream(candidate, of)));
    target = level.loopPath[level.loopPath.length - 1];
  }
  return out;
}

/**
 * The `loop.` paths in scope for a body step, by its innermost loop's config: `loop.batch` instead
 * of `loop.item` with a batchSize, `loop.state` only when the loop declares one.
 */
export function loopPaths(definition: Definition, id: string): string[] {
  const graph = asGraph(definition);
  const loopId = levelOf(graph, id)?.loopPath.at(-1);
  if (loopId === undefined) return [];
  const loop = levelOf(graph, loopId)?.steps.find((s) => s.id === loopId);
  const config: Record<string, unknown> = loop && isPlainObject(loop.config) ? loop.config : {};
  return [
    config.batchSize !== undefined ? "loop.batch" : "loop.item",
    "loop.index",
    "loop.items",
    ...(config.state !== undefined ? ["loop.state"] : []),
  ];
}

export interface ReferenceOptions {
  /** Workspace secret names; offered only where a field allows secrets. */
  readonly secrets?: readonly string[];
  readonly allowSecrets?: boolean;
}

/** Reference paths (no braces) a step's config or `when` may use, in a useful order. */
export function referencePaths(
  definition: Definition,
  stepId: string,
  options: ReferenceOptions = {},
): string[] {
  const inputs = isPlainObject(definition.inputs) ? Object.keys(definition.inputs) : [];
  const vars = isPlainObject(definition.variables) ? Object.keys(definition.variables) : [];
  const paths = [
    ...upstreamSteps(definition, stepId).flatMap((id) => [
      `steps.${id}.output.data`,
      `steps.${id}.status`,
    ]),
    ...inputs.map((name) => `input.${name}`),
    ...vars.map((name) => `vars.${name}`),
    ...loopPaths(definition, stepId),
    "lastOutput.data",
    "trigger.data",
    "run.id",
    "run.workflowId",
  ];
  if (options.allowSecrets) paths.push(...(options.secrets ?? []).map((n) => `secrets.${n}`));
  return paths;
}

/** Paths the workflow `output` may use: every top-level step (body steps are out of scope). */
export function outputReferencePaths(definition: Definition): string[] {
  const steps = asGraph(definition).steps.map((s) => `steps.${s.id}.output.data`);
  const inputs = isPlainObject(definition.inputs) ? Object.keys(definition.inputs) : [];
  return [...steps, ...inputs.map((n) => `input.${n}`)];
}

/**
 * Completions for a text field: when the text ends inside an open `{{ …`, the whole text with
 * that template completed for each matching path (a <datalist> offers whole values); nothing
 * otherwise, so the list does not get in the way of plain typing.
 */
export function templateCompletions(text: string, paths: readonly string[]): string[] {
  const open = text.lastIndexOf("{{");
  if (open < 0 || text.indexOf("}}", open) >= 0) return [];
  const partial = text.slice(open + 2).trim();
  const before = text.slice(0, open);
  return paths
    .filter((p) => p.startsWith(partial) || (partial.length > 0 && p.includes(partial)))
    .map((p) => `${before}{{ ${p} }}`);
}

/** Inserts `{{ path }}` at the caret (or replaces the selection); returns the new caret too. */
export function insertTemplate(
  text: string,
  path: string,
  selection: { start: number; end: number } = { start: text.length, end: text.length },
): { text: string; caret: number } {
  const template = `{{ ${path} }}`;
  return {
    text: text.slice(0, selection.start) + template + text.slice(selection.end),
    caret: selection.start + template.length,
  };
}

/** Short label of an edge's source port for the inspector ("success" for the primary one). */
export function portLabel(type: string, port: string): string {
  return port === defaultPortOf(type) ? `${port} (default)` : port;
}
