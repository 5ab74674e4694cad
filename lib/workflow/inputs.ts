/**
 * Run input checking against a definition's `inputs` (manual run form, API, webhook mapping) —
 * and, with `{ noun: "field" }`, an approval form's values against its fields: defaults are
 * applied, required inputs must be present, types and enums are enforced, unknown keys are
 * refused (they are almost always typos). `null` counts as "not given".
 */
import { matchesInputType, type InputSpec } from "./definition";
import { deepEqual, didYouMean, isPlainObject, jsonProblem, preview, type JsonValue } from "./json";

export interface RunInputIssue {
  /** The input's name; absent for problems with the input as a whole. */
  readonly name?: string;
  readonly message: string;
}

export type RunInputResult =
  | { readonly ok: true; readonly value: Record<string, JsonValue> }
  | { readonly ok: false; readonly issues: readonly RunInputIssue[] };

const NOUNS = {
  input: { one: "Input", lower: "input", whole: "Run input", owner: "this workflow takes" },
  field: { one: "Field", lower: "field", whole: "The form", owner: "this form has" },
} as const;

export function resolveRunInput(
  inputs: Readonly<Record<string, InputSpec>>,
  raw: unknown,
  options: { noun?: keyof typeof NOUNS } = {},
): RunInputResult {
  const noun = NOUNS[options.noun ?? "input"];
  if (raw !== undefined && raw !== null && !isPlainObject(raw))
    return {
      ok: false,
      issues: [
        { message: `${noun.whole} must be an object of named values, got ${preview(raw)}.` },
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
        message: `Unknown ${noun.lower} "${key}"; ${noun.owner} ${names.length ? names.join(", ") : `no ${noun.lower}s`}.${didYouMean(key, names)}`,
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
          message: `${noun.one} "${name}" is required${spec.description ? ` (${spec.description})` : ""}.`,
        });
      continue;
    }
    const problem = jsonProblem(candidate);
    if (problem) {
      // Right type, but not storable JSON (too deep, NaN…): name the limit, not the type.
      issues.push({ name, message: `${noun.one} "${name}" cannot be used: ${problem}.` });
      continue;
    }
    if (!matchesInputType(spec.type, candidate)) {
      issues.push({
        name,
        message: `${noun.one} "${name}" must be ${spec.type === "array" || spec.type === "object" ? "an" : "a"} ${spec.type}, got ${preview(candidate)}.`,
      });
      continue;
    }
    if (spec.enum && !spec.enum.some((allowed) => deepEqual(allowed, candidate))) {
      issues.push({
        name,
        message: `${noun.one} "${name}" must be one of ${spec.enum.map((v) => preview(v)).join(", ")}, got ${preview(candidate)}.`,
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
