/**
 * Run input checking against a definition's `inputs` (manual run form, API, webhook mapping) —
 * and, with other FieldWords, a task's output or an approval form's values: defaults are
 * applied, required inputs must be present, types and enums are enforced, unknown keys are
 * refused (they are almost always typos). `null` counts as "not given".
 */
import { matchesInputType, type InputSpec } from "./definition";
import {
  deepEqual,
  didYouMean,
  isPlainObject,
  jsonProblem,
  preview,
  type JsonValue,
  quote,
} from "./json";

export interface RunInputIssue {
  /** The input's name; absent for problems with the input as a whole. */
  readonly name?: string;
  readonly message: string;
}

export type RunInputResult =
  | { readonly ok: true; readonly value: Record<string, JsonValue> }
  | { readonly ok: false; readonly issues: readonly RunInputIssue[] };

/** How messages name the values: run inputs, or a task's output fields (same field shape). */
export interface FieldWords {
  readonly whole: string;
  readonly one: string;
  readonly owner: string;
  readonly none: string;
}
export const RUN_INPUT_WORDS: FieldWords = {
  whole: "Run input",
  one: "Input",
  owner: "this workflow takes",
  none: "no inputs",
};
export const TASK_OUTPUT_WORDS: FieldWords = {
  whole: "Task output",
  one: "Output field",
  owner: "this task takes",
  none: "no output fields",
};
export const FORM_FIELD_WORDS: FieldWords = {
  whole: "The form",
  one: "Field",
  owner: "this form has",
  none: "no fields",
};

export function resolveRunInput(
  inputs: Readonly<Record<string, InputSpec>>,
  raw: unknown,
  words: FieldWords = RUN_INPUT_WORDS,
): RunInputResult {
  const { one } = words;
  if (raw !== undefined && raw !== null && !isPlainObject(raw))
    return {
      ok: false,
      issues: [
        { message: `${words.whole} must be an object of named values, got ${preview(raw)}.` },
      ],
    };
  const given = (raw ?? {}) as Record<string, unknown>;
  const issues: RunInputIssue[] = [];
  const value: Record<string, JsonValue> = {};
  const names = Object.keys(inputs);
  for (const key of Object.keys(given)) {
    if (!Object.prototype.hasOwnProperty.call(inputs, key))
      issues.push({
        name: key,
        message: `Unknown ${one.toLowerCase()} ${quote(key)}; ${words.owner} ${names.length ? names.join(", ") : words.none}.${didYouMean(key, names)}`,
      });
  }
  for (const [name, spec] of Object.entries(inputs)) {
    const provided =
      Object.prototype.hasOwnProperty.call(given, name) &&
      given[name] !== null &&
      given[name] !== undefined
        ? given[name]
        : undefined;
    const candidate = provided ?? spec.default;
    if (candidate === undefined) {
      if (spec.required)
        issues.push({
          name,
          message: `${one} ${quote(name)} is required${spec.description ? ` (${spec.description})` : ""}.`,
        });
      continue;
    }
    const problem = jsonProblem(candidate);
    if (problem) {
      // Right type, but not storable JSON (too deep, NaN…): name the limit, not the type.
      issues.push({ name, message: `${one} ${quote(name)} cannot be used: ${problem}.` });
      continue;
    }
    if (!matchesInputType(spec.type, candidate)) {
      issues.push({
        name,
        message: `${one} ${quote(name)} must be ${spec.type === "array" || spec.type === "object" ? "an" : "a"} ${spec.type}, got ${preview(candidate)}.`,
      });
      continue;
    }
    if (spec.enum && !spec.enum.some((allowed) => deepEqual(allowed, candidate))) {
      issues.push({
        name,
        message: `${one} ${quote(name)} must be one of ${spec.enum.map((v) => preview(v)).join(", ")}, got ${preview(candidate)}.`,
      });
      continue;
    }
    // fromEntries-style definition keeps even odd names ordinary own properties.
    Object.defineProperty(value, name, {
      value: candidate,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
