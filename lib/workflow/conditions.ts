/**
 * Structured conditions (SPEC §3): never code strings.
 *
 *   { "ref": "<path>", "<op>": value }   op ∈ eq neq gt gte lt lte in contains exists matches
 *   { "ref": "<path>" }                  no operator = truthy
 *   { "all": [c, …] } · { "any": [c, …] } · { "not": c }
 *
 * `ref` is a bare path (no braces). Operator values may contain templates; they are resolved
 * first (a lone `{{ path }}` keeps its type). Coercion rules — none, deliberately:
 * - eq / neq / in / contains use JSON deep equality; a missing value equals null; "1" ≠ 1.
 * - gt / gte / lt / lte compare two numbers numerically or two strings by code units (ISO dates
 *   compare correctly); any other pairing is false (so `neq`-style negation via `not` stays sane).
 * - contains: substring for strings, deep-equal member for arrays, own key for objects; else false.
 * - exists: true when the value is neither missing nor null (`exists: false` is the negation).
 * - truthy: false for missing, null, false, 0, NaN, "", [] and {} — empty collections are falsy,
 *   unlike JavaScript, because "has items" is what a workflow author means.
 * - matches: the value is a pattern string or { pattern, flags } (flags from "imsu"); a non-string
 *   subject is false. Guard: patterns ≤ 256 chars, no back-references, no nested unbounded
 *   quantifiers such as (a+)+, and subjects over 10,000 characters throw a ConditionError.
 *   Polynomial patterns (.*.*x) are still possible; the subject cap bounds their cost.
 */
import { z } from "zod";
import { describeType, hasOwn, isPlainObject, preview, type JsonValue, quote } from "./json";
import { parseReference, TemplateSyntaxError } from "./templates";
import {
  scanValue,
  summarize,
  type LocatedReference,
  type LocatedTemplateError,
  type Location,
  type ReferenceSummary,
} from "./template-scan";
import { regexProblem } from "./condition-regex";

export const CONDITION_OPERATORS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "contains",
  "exists",
  "matches",
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** How an operator reads between its operands (`250 > 100`, `"eu" in ["eu","us"]`). */
export const OPERATOR_SYMBOLS: Record<ConditionOperator, string> = {
  eq: "=",
  neq: "≠",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  in: "in",
  contains: "contains",
  exists: "exists",
  matches: "matches",
};

export const CONDITION_MAX_DEPTH = 32;

export type RegexSpec = string | { pattern: string; flags?: string };

export interface ConditionLeaf {
  ref: string;
  eq?: JsonValue;
  neq?: JsonValue;
  gt?: JsonValue;
  gte?: JsonValue;
  lt?: JsonValue;
  lte?: JsonValue;
  in?: JsonValue;
  contains?: JsonValue;
  exists?: boolean;
  matches?: RegexSpec;
}
export type Condition =
  ConditionLeaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };

export class ConditionError extends Error {
  override readonly name = "ConditionError";
}

export interface ConditionShapeIssue {
  path: Array<string | number>;
  message: string;
  code: "INVALID_CONDITION" | "INVALID_REGEX";
}

/** Lists every structural problem of a condition (empty = valid); the zod schema reports these. */
export function checkConditionShape(
  value: unknown,
  path: Array<string | number> = [],
  depth = 0,
): ConditionShapeIssue[] {
  const issue = (
    message: string,
    at = path,
    code: ConditionShapeIssue["code"] = "INVALID_CONDITION",
  ): ConditionShapeIssue[] => [{ path: at, message, code }];
  if (depth > CONDITION_MAX_DEPTH)
    return issue(`Conditions nest at most ${CONDITION_MAX_DEPTH} levels deep.`);
  if (!isPlainObject(value))
    return issue(
      `A condition must be an object such as { "ref": "input.ok", "eq": true }, got ${describeType(value)}.`,
    );
  const keys = Object.keys(value);
  if (hasOwn(value, "all") || hasOwn(value, "any")) {
    const key = hasOwn(value, "all") ? "all" : "any";
    if (keys.length !== 1)
      return issue(
        `A ${quote(key)} condition has no other keys; found ${keys
          .filter((k) => k !== key)
          .map((k) => quote(k))
          .join(", ")}.`,
      );
    const list = value[key];
    if (!Array.isArray(list) || list.length === 0)
      return issue(`${quote(key)} must be a non-empty array of conditions.`, [...path, key]);
    return list.flatMap((child, i) => checkConditionShape(child, [...path, key, i], depth + 1));
  }
  if (hasOwn(value, "not")) {
    if (keys.length !== 1)
      return issue(
        `A "not" condition has no other keys; found ${keys
          .filter((k) => k !== "not")
          .map((k) => quote(k))
          .join(", ")}.`,
      );
    return checkConditionShape(value.not, [...path, "not"], depth + 1);
  }
  return checkLeaf(value, path);
}

function checkLeaf(
  value: Record<string, unknown>,
  path: Array<string | number>,
): ConditionShapeIssue[] {
  const issues: ConditionShapeIssue[] = [];
  if (typeof value.ref !== "string" || value.ref.trim() === "") {
    issues.push({
      path: [...path, "ref"],
      code: "INVALID_CONDITION",
      message: `A condition needs "ref": a path such as "steps.check.output.data" (or use "all", "any", "not"); got ${describeType(value.ref)}.`,
    });
  }
  const unknown = Object.keys(value).filter(
    (k) => k !== "ref" && !(CONDITION_OPERATORS as readonly string[]).includes(k),
  );
  for (const key of unknown) {
    issues.push({
      path: [...path, key],
      code: "INVALID_CONDITION",
      message: `Unknown condition key ${quote(key)}; operators are ${CONDITION_OPERATORS.join(", ")}, combinators all, any, not.`,
    });
  }
  const ops = CONDITION_OPERATORS.filter((op) => hasOwn(value, op));
  if (ops.length > 1) {
    issues.push({
      path,
      code: "INVALID_CONDITION",
      message: `A condition has one operator, found ${ops.join(" and ")}; combine several with { "all": [...] }.`,
    });
  }
  const op = ops[0];
  if (op === "exists" && typeof value.exists !== "boolean") {
    issues.push({
      path: [...path, "exists"],
      code: "INVALID_CONDITION",
      message: `"exists" takes true or false, got ${preview(value.exists)}.`,
    });
  }
  if (op === "in" && !Array.isArray(value.in) && typeof value.in !== "string") {
    issues.push({
      path: [...path, "in"],
      code: "INVALID_CONDITION",
      message: `"in" takes an array (or a template yielding one), got ${describeType(value.in)}.`,
    });
  }
  if (op === "matches") issues.push(...checkMatches(value.matches, [...path, "matches"]));
  return issues;
}

function checkMatches(spec: unknown, path: Array<string | number>): ConditionShapeIssue[] {
  const pattern = typeof spec === "string" ? spec : isPlainObject(spec) ? spec.pattern : undefined;
  const flags = isPlainObject(spec) ? spec.flags : undefined;
  if (typeof pattern !== "string")
    return [
      {
        path,
        code: "INVALID_REGEX",
        message: `"matches" takes a pattern string or { "pattern": …, "flags": "i" }, got ${describeType(spec)}.`,
      },
    ];
  if (isPlainObject(spec)) {
    const extra = Object.keys(spec).filter((k) => k !== "pattern" && k !== "flags");
    if (extra.length > 0)
      return [
        {
          path,
          code: "INVALID_REGEX",
          message: `"matches" objects have only "pattern" and "flags"; found ${extra.join(", ")}.`,
        },
      ];
    if (flags !== undefined && typeof flags !== "string")
      return [
        {
          path: [...path, "flags"],
          code: "INVALID_REGEX",
          message: "Regex flags must be a string of i, m, s, u.",
        },
      ];
  }
  // A templated pattern is checked when it is resolved at run time.
  if (pattern.includes("{{")) return [];
  const problem = regexProblem(pattern, typeof flags === "string" ? flags : "");
  return problem ? [{ path, code: "INVALID_REGEX", message: problem }] : [];
}

/** Zod schema: structure checked by checkConditionShape so messages stay precise. */
export const Condition = z
  .custom<Condition>(() => true)
  .superRefine((value, ctx) => {
    for (const issue of checkConditionShape(value)) {
      ctx.addIssue({
        code: "custom",
        path: issue.path,
        message: issue.message,
        params: { code: issue.code },
      });
    }
  })
  .describe(
    'A structured condition: { "ref": "<path>", "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "in" | "contains" | "exists" | "matches": value }, or { "all": [...] }, { "any": [...] }, { "not": {...} }. No operator means truthy.',
  );

/** All references a condition makes: its `ref` paths and templates inside operator values. */
export function conditionRefs(condition: unknown, basePath: Location = []): ReferenceSummary {
  const references: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  collectConditionRefs(condition, basePath, references, errors, 0);
  return summarize(references, errors);
}

function collectConditionRefs(
  value: unknown,
  path: Location,
  refs: LocatedReference[],
  errors: LocatedTemplateError[],
  depth: number,
): void {
  if (!isPlainObject(value) || depth > CONDITION_MAX_DEPTH) return;
  for (const key of ["all", "any"] as const) {
    const list = value[key];
    if (Array.isArray(list))
      list.forEach((child, i) =>
        collectConditionRefs(child, [...path, key, i], refs, errors, depth + 1),
      );
  }
  if (hasOwn(value, "not"))
    collectConditionRefs(value.not, [...path, "not"], refs, errors, depth + 1);
  if (typeof value.ref === "string") collectRef(value.ref, [...path, "ref"], refs, errors);
  for (const op of CONDITION_OPERATORS) {
    if (hasOwn(value, op)) scanValue(value[op], [...path, op], refs, errors);
  }
}

function collectRef(
  ref: string,
  location: Location,
  refs: LocatedReference[],
  errors: LocatedTemplateError[],
): void {
  const trimmed = ref.trim();
  if (trimmed.startsWith("{{")) {
    const inner = trimmed.replace(/^\{\{\s*|\s*\}\}$/g, "");
    errors.push({
      location,
      error: new TemplateSyntaxError(
        `"ref" is a bare path: write ${quote(inner)} without {{ }}.`,
        "INVALID_TEMPLATE",
        0,
      ),
    });
    return;
  }
  try {
    refs.push({ reference: parseReference(ref), location });
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    errors.push({ error, location });
  }
}
