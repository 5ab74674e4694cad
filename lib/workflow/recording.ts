/**
 * Recording mode (docs/mcp.md "Recording a workflow"): an agent calls step types one by one, each
 * call is executed and kept as a step, and the recording becomes a draft workflow. These pure
 * pieces turn the agent's arguments into definition steps and find literal values that could be
 * references to an earlier step's output.
 */
import { isPlainObject } from "./json";
import { STEP_ID_PATTERN } from "./primitives";
import { hasTemplate } from "./templates";
import { RECORDABLE_STEP_TYPES, type RecordableStepType } from "./step-traits";

// The step types an agent may record: side effects with a handler of their own, no waits
// (`recordable` in the catalog's traits).
export { RECORDABLE_STEP_TYPES, type RecordableStepType };

export interface RecordedStep {
  id: string;
  type: RecordableStepType;
  /** The config as recorded: templates and references intact (`@step` shorthand expanded). */
  config: unknown;
}

/** `@fetch.body.items[0]` — the whole string names an earlier step's output data (or a path in it). */
const SHORTHAND = /^@([a-z][a-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\.\d+|\[\d+\])*)$/;

/**
 * Rewrites `@<step>.<path>` strings to `{{ steps.<step>.output.data.<path> }}`, but only when
 * `<step>` is an earlier recorded step: `@team` in a chat message stays a literal. A whole-string
 * template keeps the referenced value's JSON type when resolved.
 */
export function expandStepShorthand(value: unknown, earlierSteps: ReadonlySet<string>): unknown {
  if (typeof value === "string") {
    const m = SHORTHAND.exec(value);
    if (!m || !earlierSteps.has(m[1]!)) return value;
    return `{{ steps.${m[1]}.output.data${m[2] ?? ""} }}`;
  }
  if (Array.isArray(value)) return value.map((v) => expandStepShorthand(v, earlierSteps));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandStepShorthand(v, earlierSteps)]),
    );
  return value;
}

/** The next free step id for a type (`http`, `http_2`, …) when the agent names none. */
export function nextStepId(type: string, taken: ReadonlySet<string>): string {
  if (!taken.has(type)) return type;
  for (let n = 2; ; n++) if (!taken.has(`${type}_${n}`)) return `${type}_${n}`;
}

/** Whether `id` is a usable, unused step id; the reason when it is not. */
export function stepIdProblem(id: string, taken: ReadonlySet<string>): string | undefined {
  if (!STEP_ID_PATTERN.test(id) || id.length > 64)
    return "Step ids are lowercase letters, digits and _, starting with a letter (at most 64)";
  if (taken.has(id)) return `Step "${id}" was already recorded in this recording`;
  return undefined;
}

/** The JSON type name of an input value, as run inputs declare it. */
function inputType(value: unknown): "string" | "number" | "boolean" | "object" | "array" {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  return "object";
}

/**
 * The inputs a recording declares: one per key of the input it started with, typed by the value
 * and defaulting to it, so the saved workflow runs as recorded without arguments.
 */
export function recordingInputs(
  input: Record<string, unknown>,
): Record<string, { type: string; default?: unknown }> {
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, { type: inputType(v), default: v }]),
  );
}

/**
 * The definition a recording becomes: its steps in recorded order (no edges = array order),
 * configs with their references, the inputs it started with, and `output` when given.
 */
export function recordedDefinition(args: {
  name: string;
  input: Record<string, unknown>;
  steps: readonly RecordedStep[];
  output?: unknown;
}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    name: args.name,
    inputs: recordingInputs(args.input),
    steps: args.steps.map((s) => ({ id: s.id, type: s.type, config: s.config })),
    ...(args.output === undefined ? {} : { output: args.output }),
  };
}

export interface ReferenceSuggestion {
  /** The step whose config holds the literal. */
  stepId: string;
  /** Where in that step's config, as a JSON path (`["headers", "x-id"]`). */
  path: (string | number)[];
  /** The literal value found there. */
  value: string | number;
  /** The template that would replace it. */
  reference: string;
}

type Leaf = { path: (string | number)[]; value: string | number };

/** Literal leaves worth matching: strings of 3+ characters without a template, numbers beyond 0–9. */
function leaves(value: unknown, path: (string | number)[] = [], out: Leaf[] = []): Leaf[] {
  if (typeof value === "string") {
    if (value.length >= 3 && !hasTemplate(value)) out.push({ path, value });
  } else if (typeof value === "number") {
    if (Math.abs(value) >= 10) out.push({ path, value });
  } else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], out));
  else if (isPlainObject(value))
    for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  return out;
}

/** `.name` for identifier keys, `[0]` for indexes; undefined when a key needs quoting. */
function templatePath(path: (string | number)[]): string | undefined {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += `.${seg}`;
    else return undefined;
  }
  return out;
}

/**
 * Post-hoc references: literal values in a step's config equal to a value an earlier step
 * produced (or to a run input), offered to the user to confirm — the agent may have copied an
 * id from one result into the next call instead of referencing it. The nearest earlier step wins.
 */
export function suggestReferences(args: {
  steps: readonly RecordedStep[];
  /** Each recorded step's output data, by step id. */
  outputs: Readonly<Record<string, unknown>>;
  input: Record<string, unknown>;
}): ReferenceSuggestion[] {
  const suggestions: ReferenceSuggestion[] = [];
  const known: { root: string; leaves: Leaf[] }[] = [{ root: "input", leaves: leaves(args.input) }];
  for (const step of args.steps) {
    for (const literal of leaves(step.config)) {
      for (let i = known.length - 1; i >= 0; i--) {
        const hit = known[i]!.leaves.find((l) => l.value === literal.value);
        const tail = hit && templatePath(hit.path);
        if (hit && tail !== undefined) {
          suggestions.push({
            stepId: step.id,
            path: literal.path,
            value: literal.value,
            reference: `{{ ${known[i]!.root}${tail} }}`,
          });
          break;
        }
      }
    }
    known.push({
      root: `steps.${step.id}.output.data`,
      leaves: leaves(args.outputs[step.id]),
    });
  }
  return suggestions;
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let at = root;
  for (const seg of path) {
    if (Array.isArray(at) && typeof seg === "number") at = at[seg];
    else if (isPlainObject(at) && typeof seg === "string") at = at[seg];
    else return undefined;
  }
  return at;
}

type DefinitionLike = { readonly steps?: unknown };
type StepLike = { id?: unknown; config?: unknown };
const stepsOf = (d: DefinitionLike): StepLike[] =>
  Array.isArray(d.steps) ? d.steps.filter((x): x is StepLike => isPlainObject(x)) : [];

/**
 * The suggestions that still apply to `definition` (the draft as edited since): the step exists
 * and still holds the literal at that path. Applied or edited-away ones drop out.
 */
export function liveSuggestions(
  definition: DefinitionLike,
  suggestions: readonly ReferenceSuggestion[],
): ReferenceSuggestion[] {
  return suggestions.filter((s) => {
    const step = stepsOf(definition).find((x) => x.id === s.stepId);
    return step !== undefined && valueAt(step.config, s.path) === s.value;
  });
}

/** `definition` with the suggestion's literal replaced by its reference (a new object). */
export function applySuggestion<D extends DefinitionLike>(
  definition: D,
  s: ReferenceSuggestion,
): D {
  const setAt = (node: unknown, path: readonly (string | number)[]): unknown => {
    if (path.length === 0) return s.reference;
    const [head, ...rest] = path;
    if (Array.isArray(node) && typeof head === "number")
      return node.map((v, i) => (i === head ? setAt(v, rest) : v));
    if (isPlainObject(node) && typeof head === "string")
      return { ...node, [head]: setAt(node[head], rest) };
    return node;
  };
  if (!Array.isArray(definition.steps)) return definition;
  return {
    ...definition,
    steps: (definition.steps as unknown[]).map((step) =>
      isPlainObject(step) && step.id === s.stepId
        ? { ...step, config: setAt(step.config, s.path) }
        : step,
    ),
  };
}
