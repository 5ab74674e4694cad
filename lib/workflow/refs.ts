/**
 * Definition-level reference analysis: what each step (and the output) refers to, which secrets
 * a workflow needs, who uses a step, and renaming a step id everywhere it is referenced. Shared
 * by the validator and the editor. Honors the catalog's template modes: `code.source` and loop
 * bodies are not scanned as part of their step; proposed definitions only as a whole-field
 * template.
 */
import { STEP_CATALOG } from "./catalog";
import { conditionRefs } from "./conditions";
import { isPlainObject, quote } from "./json";
import { STEP_ID_PATTERN } from "./primitives";
import { isStepType } from "./steps";
import { tryParseTemplate } from "./templates";
import {
  scanString,
  scanValue,
  summarize,
  type LocatedReference,
  type LocatedTemplateError,
  type ReferenceSummary,
} from "./template-scan";

export interface StepReferences {
  readonly refs: LocatedReference[];
  readonly errors: LocatedTemplateError[];
  /** The subset of `refs` made by the step's `when` (those are dependencies, not data reads). */
  readonly whenRefs: ReadonlySet<LocatedReference>;
}

/** References one step makes; locations are relative to the step (e.g. ["config", "url"]). */
export function stepReferences(step: {
  readonly type?: unknown;
  readonly config?: unknown;
  readonly when?: unknown;
}): StepReferences {
  const refs: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  const type = typeof step.type === "string" ? step.type : "";
  if (isPlainObject(step.config)) {
    const modes = isStepType(type) ? STEP_CATALOG[type].templateModes : {};
    for (const [key, value] of Object.entries(step.config)) {
      const location = ["config", key];
      const mode = Object.prototype.hasOwnProperty.call(modes, key) ? modes[key] : undefined;
      if (mode === "literal") continue;
      if (mode === "rawOnly") {
        if (typeof value === "string") scanString(value, location, refs, errors);
        continue;
      }
      if (type === "condition" && key === "condition") {
        const found = conditionRefs(value, location);
        refs.push(...found.references);
        errors.push(...found.errors);
        continue;
      }
      scanValue(value, location, refs, errors);
    }
  }
  const whenRefs = new Set<LocatedReference>();
  if (step.when !== undefined) {
    const found = conditionRefs(step.when, ["when"]);
    found.references.forEach((r) => whenRefs.add(r));
    refs.push(...found.references);
    errors.push(...found.errors);
  }
  return { refs, errors, whenRefs };
}

export interface DefinitionReferences {
  /** Per step id (loop body steps included). */
  readonly steps: ReadonlyMap<string, ReferenceSummary>;
  readonly output: ReferenceSummary;
  /** Distinct secrets used anywhere: what the workspace must provide before a run. */
  readonly secrets: readonly string[];
  readonly inputs: readonly string[];
  readonly vars: readonly string[];
}

export function definitionReferences(definition: unknown): DefinitionReferences {
  const steps = new Map<string, ReferenceSummary>();
  forEachStep(definition, (step) => {
    const { refs, errors } = stepReferences(step);
    if (typeof step.id === "string" && !steps.has(step.id))
      steps.set(step.id, summarize(refs, errors));
  });
  const outputRefs: LocatedReference[] = [];
  const outputErrors: LocatedTemplateError[] = [];
  if (isPlainObject(definition) && definition.output !== undefined)
    scanValue(definition.output, ["output"], outputRefs, outputErrors);
  const output = summarize(outputRefs, outputErrors);
  const all = [...steps.values(), output];
  const distinct = (pick: (s: ReferenceSummary) => readonly string[]) => [
    ...new Set(all.flatMap(pick)),
  ];
  // Script steps also name secrets outside templates, in their env-var → secret mapping.
  const mapped: string[] = [];
  forEachStep(definition, (step) => {
    if (
      step.type === "script" &&
      isPlainObject(step.config) &&
      isPlainObject(step.config.secrets)
    ) {
      mapped.push(
        ...Object.values(step.config.secrets).filter(
          (name): name is string => typeof name === "string",
        ),
      );
    }
  });
  return {
    steps,
    output,
    secrets: [...new Set([...distinct((s) => s.secrets), ...mapped])],
    inputs: distinct((s) => s.inputs),
    vars: distinct((s) => s.vars),
  };
}

/** Ids of the steps whose config or `when` reference `stepId` ("output" for the workflow output). */
export function stepsReferencing(definition: unknown, stepId: string): string[] {
  const refs = definitionReferences(definition);
  const users = [...refs.steps]
    .filter(([, summary]) => summary.steps.includes(stepId))
    .map(([id]) => id);
  return refs.output.steps.includes(stepId) ? [...users, "output"] : users;
}

/**
 * Calls `visit` for every step object, loop bodies included (depth-first, array order), with its
 * JSON path (`["steps", 2, "config", "body", "steps", 0]`).
 */
export function forEachStep(
  definition: unknown,
  visit: (step: Record<string, unknown>, path: Array<string | number>) => void,
): void {
  const walk = (steps: unknown, at: Array<string | number>, depth: number) => {
    if (!Array.isArray(steps) || depth > 32) return;
    steps.forEach((step: unknown, i) => {
      if (!isPlainObject(step)) return;
      const path = [...at, i];
      visit(step, path);
      const body =
        step.type === "loop" && isPlainObject(step.config) ? step.config.body : undefined;
      if (isPlainObject(body)) walk(body.steps, [...path, "config", "body", "steps"], depth + 1);
    });
  };
  if (isPlainObject(definition)) walk(definition.steps, ["steps"], 0);
}

export class RenameError extends Error {
  override readonly name = "RenameError";
}

/**
 * Renames a step and rewrites every reference to it: edges, `steps.<id>` in templates and
 * condition refs (config, `when`, `output`), and layout positions. Other text is untouched
 * (whitespace inside braces is kept). Returns a new object; throws RenameError when the new id
 * is invalid or taken, or the old one does not exist.
 */
export function renameStep<T>(definition: T, from: string, to: string): T {
  if (!STEP_ID_PATTERN.test(to) || to.length > 64)
    throw new RenameError(
      `${quote(to)} is not a valid step id: start with a lower-case letter, then a-z, 0-9 and _ (max 64).`,
    );
  const ids = new Set<string>();
  forEachStep(definition, (step) => typeof step.id === "string" && ids.add(step.id));
  if (!ids.has(from)) throw new RenameError(`There is no step ${quote(from)}.`);
  if (from !== to && ids.has(to)) throw new RenameError(`A step ${quote(to)} already exists.`);
  if (!isPlainObject(definition)) return definition;
  const out: Record<string, unknown> = {
    ...definition,
    steps: renameInSteps(definition.steps, from, to, 0),
  };
  if (Array.isArray(definition.edges)) out.edges = renameInEdges(definition.edges, from, to);
  if (definition.output !== undefined) out.output = rewriteTemplates(definition.output, from, to);
  if (
    isPlainObject(definition.layout) &&
    isPlainObject(definition.layout.positions) &&
    Object.prototype.hasOwnProperty.call(definition.layout.positions, from)
  ) {
    const positions = Object.fromEntries(
      Object.entries(definition.layout.positions).map(([id, p]) => [id === from ? to : id, p]),
    );
    out.layout = { ...definition.layout, positions };
  }
  return out as T;
}

function renameInSteps(steps: unknown, from: string, to: string, depth: number): unknown {
  if (!Array.isArray(steps) || depth > 32) return steps;
  return steps.map((step) => {
    if (!isPlainObject(step)) return step;
    const next: Record<string, unknown> = { ...step };
    if (step.id === from) next.id = to;
    if (step.when !== undefined) next.when = rewriteCondition(step.when, from, to);
    if (isPlainObject(step.config))
      next.config = renameInConfig(
        typeof step.type === "string" ? step.type : "",
        step.config,
        from,
        to,
        depth,
      );
    return next;
  });
}

function renameInConfig(
  type: string,
  config: Record<string, unknown>,
  from: string,
  to: string,
  depth: number,
): Record<string, unknown> {
  const modes = isStepType(type) ? STEP_CATALOG[type].templateModes : {};
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      const mode = Object.prototype.hasOwnProperty.call(modes, key) ? modes[key] : undefined;
      if (type === "loop" && key === "body" && isPlainObject(value)) {
        const body: Record<string, unknown> = {
          ...value,
          steps: renameInSteps(value.steps, from, to, depth + 1),
        };
        if (Array.isArray(value.edges)) body.edges = renameInEdges(value.edges, from, to);
        return [key, body];
      }
      // A loop's stateFrom names a body step by id (not a template).
      if (type === "loop" && key === "stateFrom") return [key, value === from ? to : value];
      if (mode === "literal") return [key, value];
      if (mode === "rawOnly")
        return [key, typeof value === "string" ? rewriteString(value, from, to) : value];
      if (type === "condition" && key === "condition")
        return [key, rewriteCondition(value, from, to)];
      return [key, rewriteTemplates(value, from, to)];
    }),
  );
}

function renameInEdges(edges: unknown[], from: string, to: string): unknown[] {
  return edges.map((edge) =>
    isPlainObject(edge)
      ? {
          ...edge,
          ...(edge.from === from ? { from: to } : {}),
          ...(edge.to === from ? { to } : {}),
        }
      : edge,
  );
}

function rewriteTemplates(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return rewriteString(value, from, to);
  if (Array.isArray(value)) return value.map((v) => rewriteTemplates(v, from, to));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, rewriteTemplates(v, from, to)]),
    );
  return value;
}

function rewriteCondition(condition: unknown, from: string, to: string): unknown {
  if (!isPlainObject(condition)) return condition;
  return Object.fromEntries(
    Object.entries(condition).map(([key, value]) => {
      if (key === "ref" && typeof value === "string") return [key, rewritePath(value, from, to)];
      if ((key === "all" || key === "any") && Array.isArray(value))
        return [key, value.map((c) => rewriteCondition(c, from, to))];
      if (key === "not") return [key, rewriteCondition(value, from, to)];
      return [key, rewriteTemplates(value, from, to)];
    }),
  );
}

/** Rewrites `{{ steps.<from>… }}` expressions in one string, leaving everything else as written. */
function rewriteString(text: string, from: string, to: string): string {
  if (!text.includes("{{")) return text;
  const parsed = tryParseTemplate(text);
  if (!parsed.ok) return text;
  let out = "";
  let cursor = 0;
  for (const part of parsed.template.parts) {
    if (
      part.kind !== "expression" ||
      part.reference.root !== "steps" ||
      part.reference.stepId !== from
    )
      continue;
    out += text.slice(cursor, part.start) + rewritePath(text.slice(part.start, part.end), from, to);
    cursor = part.end;
  }
  return out + text.slice(cursor);
}

/** Replaces the id segment right after the `steps` root, in dot or bracket form. */
function rewritePath(text: string, from: string, to: string): string {
  return text.replace(
    /(^|\{\{\s*)steps(\.|\[\s*(["']))([a-z][a-z0-9_]*)/,
    (match, lead: string, sep: string, _q: string | undefined, id: string) =>
      id === from ? `${lead}steps${sep}${to}` : match,
  );
}
