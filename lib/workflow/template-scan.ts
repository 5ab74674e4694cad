/** Static analysis of templates: every reference (and syntax error) in a value, with its location. */
import { isPlainObject } from "./json";
import {
  hasTemplate,
  tryParseTemplate,
  TemplateSyntaxError,
  type TemplateReference,
} from "./templates";

export type Location = ReadonlyArray<string | number>;

export interface LocatedReference {
  readonly reference: TemplateReference;
  /** Where the template string sits inside the scanned value (JSON path). */
  readonly location: Location;
}

export interface LocatedTemplateError {
  readonly error: TemplateSyntaxError;
  readonly location: Location;
}

export interface ReferenceSummary {
  readonly references: readonly LocatedReference[];
  readonly errors: readonly LocatedTemplateError[];
  /** Distinct names, in first-seen order. */
  readonly steps: readonly string[];
  readonly inputs: readonly string[];
  readonly vars: readonly string[];
  readonly secrets: readonly string[];
  readonly usesLoop: boolean;
  readonly usesLastOutput: boolean;
  readonly usesTrigger: boolean;
}

/** Lists every reference inside a value (deeply), with syntax errors instead of throwing. */
export function collectReferences(value: unknown, basePath: Location = []): ReferenceSummary {
  const references: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  scanValue(value, basePath, references, errors);
  return summarize(references, errors);
}

/** Nesting beyond this is not scanned (validated definitions never get close). */
const SCAN_MAX_DEPTH = 128;

/**
 * Appends the references inside `value` to the given lists. One mutable path is pushed and
 * popped during the walk and copied only where a template is found, which keeps scanning a
 * 1,000-step definition cheap.
 */
export function scanValue(
  value: unknown,
  basePath: Location,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
): void {
  scanInto(value, [...basePath], references, errors, 0);
}

function scanInto(
  value: unknown,
  path: Array<string | number>,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
  depth: number,
): void {
  if (typeof value === "string") {
    if (value.includes("{{")) scanString(value, [...path], references, errors);
    return;
  }
  if (value === null || typeof value !== "object" || depth > SCAN_MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      scanInto(value[i], path, references, errors, depth + 1);
      path.pop();
    }
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    path.push(key);
    scanInto(value[key], path, references, errors, depth + 1);
    path.pop();
  }
}

export function scanString(
  text: string,
  location: Location,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
): void {
  if (!hasTemplate(text)) return;
  const parsed = tryParseTemplate(text);
  if (!parsed.ok) {
    errors.push({ error: parsed.error, location });
    return;
  }
  for (const part of parsed.template.parts) {
    if (part.kind === "expression") references.push({ reference: part.reference, location });
  }
}

export function summarize(
  references: readonly LocatedReference[],
  errors: readonly LocatedTemplateError[],
): ReferenceSummary {
  const steps = new Set<string>();
  const inputs = new Set<string>();
  const vars = new Set<string>();
  const secrets = new Set<string>();
  let usesLoop = false;
  let usesLastOutput = false;
  let usesTrigger = false;
  for (const { reference } of references) {
    switch (reference.root) {
      case "steps":
        steps.add(reference.stepId);
        break;
      case "input":
        if (reference.name !== undefined) inputs.add(reference.name);
        break;
      case "vars":
        if (reference.name !== undefined) vars.add(reference.name);
        break;
      case "secrets":
        secrets.add(reference.name);
        break;
      case "loop":
        usesLoop = true;
        break;
      case "lastOutput":
        usesLastOutput = true;
        break;
      case "trigger":
        usesTrigger = true;
        break;
      case "run":
        break;
    }
  }
  return {
    references,
    errors,
    steps: [...steps],
    inputs: [...inputs],
    vars: [...vars],
    secrets: [...secrets],
    usesLoop,
    usesLastOutput,
    usesTrigger,
  };
}

/** Renders a reference back to its `{{ … }}` form for messages. */
export function showReference(reference: TemplateReference): string {
  return `{{ ${reference.path.source} }}`;
}
