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
import {
  clip,
  deepEqual,
  describeType,
  hasOwn,
  isPlainObject,
  preview,
  type JsonValue,
  quote,
} from "./json";
import { parseReference, TemplateSyntaxError } from "./templates";
import {
  scanValue,
  summarize,
  type LocatedReference,
  type LocatedTemplateError,
  type Location,
  type ReferenceSummary,
} from "./template-scan";
import { resolvePath, resolveTemplate, type TemplateContext } from "./template-resolve";

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

export const REGEX_MAX_PATTERN_LENGTH = 256;
export const REGEX_MAX_SUBJECT_LENGTH = 10_000;
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

/** Why a pattern is refused (invalid, too long, or potentially catastrophic), or null. */
export function regexProblem(pattern: string, flags = ""): string | null {
  if (pattern.length > REGEX_MAX_PATTERN_LENGTH)
    return `Regex is ${pattern.length} characters; the limit is ${REGEX_MAX_PATTERN_LENGTH}.`;
  if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length)
    return `Regex flags ${quote(flags)} are not allowed; use any of i, m, s, u once each.`;
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return `Invalid regex ${preview(pattern)}: ${(error as Error).message}.`;
  }
  if (/\\[1-9]|\\k</.test(pattern))
    return `Regex ${preview(pattern)} uses a back-reference, which can take exponential time; rewrite it without \\1 or \\k<…>.`;
  if (hasNestedQuantifier(pattern))
    return `Regex ${preview(pattern)} repeats a group that itself repeats (like (a+)+), which can take exponential time; remove the inner or outer repetition.`;
  return null;
}

/**
 * Detects a quantified group that contains an unbounded quantifier, the classic catastrophic
 * backtracking shape. Character classes and escapes are skipped; bounded `?` / `{0,1}` are fine.
 */
function hasNestedQuantifier(pattern: string): boolean {
  const groups: boolean[] = []; // per open group: does it contain an unbounded quantifier?
  let i = 0;
  let lastGroupUnbounded = false; // the token just closed was a group containing one
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      i += 2;
      lastGroupUnbounded = false;
      continue;
    }
    if (ch === "[") {
      i = skipClass(pattern, i);
      lastGroupUnbounded = false;
      continue;
    }
    if (ch === "(") {
      groups.push(false);
      i += 1;
      lastGroupUnbounded = false;
      continue;
    }
    if (ch === ")") {
      const inner = groups.pop() ?? false;
      lastGroupUnbounded = inner;
      i += 1;
      if (inner && groups.length > 0) groups[groups.length - 1] = true;
      continue;
    }
    const quantifier = readUnboundedQuantifier(pattern, i);
    if (quantifier > 0) {
      if (lastGroupUnbounded) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
      i += quantifier;
      lastGroupUnbounded = false;
      continue;
    }
    lastGroupUnbounded = false;
    i += 1;
  }
  return false;
}

function skipClass(pattern: string, start: number): number {
  let i = start + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** Length of an unbounded (or large) quantifier at i: `*`, `+`, `{n,}`, `{n,m}` with m > 1; else 0. */
function readUnboundedQuantifier(pattern: string, i: number): number {
  const ch = pattern[i];
  if (ch === "*" || ch === "+") return pattern[i + 1] === "?" ? 2 : 1;
  if (ch !== "{") return 0;
  const m = /^\{(\d+)(,(\d*))?\}\??/.exec(pattern.slice(i));
  if (!m) return 0;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
  return max > 1 ? m[0].length : 0;
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

/** Evaluates a condition against a run context. Throws ConditionError on a malformed condition. */
export function evaluateCondition(condition: Condition, ctx: TemplateContext): boolean {
  return evaluate(condition, ctx, 0);
}

/**
 * One comparison as evaluated, for the run page (`input.amount: 250 > 100 → true`): the operands
 * are JSON text clipped to CHECK_OPERAND_CHARS, so a record stays small whatever the run holds.
 */
export interface ConditionCheck {
  readonly ref: string;
  /** The operator; "truthy" for a leaf without one. */
  readonly op: ConditionOperator | "truthy";
  /** The resolved value at `ref` (JSON text; "missing" when absent). */
  readonly actual: string;
  /** The resolved operator value (JSON text); absent for truthy. */
  readonly expected?: string;
  readonly result: boolean;
}
export const CHECK_OPERAND_CHARS = 120;
/** Checks recorded per evaluation; the rest are counted in `omitted`. */
export const MAX_RECORDED_CHECKS = 20;

/**
 * Evaluates like evaluateCondition and also returns the leaves it evaluated, in order (`all`
 * and `any` stop early exactly as evaluation does, so skipped leaves are not listed).
 */
export function traceCondition(
  condition: Condition,
  ctx: TemplateContext,
): { result: boolean; checks: ConditionCheck[]; omitted: number } {
  const trace: Trace = { checks: [], omitted: 0 };
  const result = evaluate(condition, ctx, 0, trace);
  return { result, ...trace };
}

interface Trace {
  checks: ConditionCheck[];
  omitted: number;
}

const operand = (value: unknown) =>
  value === undefined ? "missing" : preview(value, CHECK_OPERAND_CHARS);

function evaluate(condition: unknown, ctx: TemplateContext, depth: number, trace?: Trace): boolean {
  if (depth > CONDITION_MAX_DEPTH)
    throw new ConditionError(`Conditions nest at most ${CONDITION_MAX_DEPTH} levels deep.`);
  if (!isPlainObject(condition))
    throw new ConditionError(`A condition must be an object, got ${describeType(condition)}.`);
  if (Array.isArray(condition.all))
    return condition.all.every((c) => evaluate(c, ctx, depth + 1, trace));
  if (Array.isArray(condition.any))
    return condition.any.some((c) => evaluate(c, ctx, depth + 1, trace));
  if (hasOwn(condition, "not")) return !evaluate(condition.not, ctx, depth + 1, trace);
  if (typeof condition.ref !== "string")
    throw new ConditionError('A condition leaf needs a "ref" path.');
  const actual = resolvePath(condition.ref, ctx);
  const op = CONDITION_OPERATORS.find((o) => hasOwn(condition, o));
  const expected = op === undefined ? undefined : resolveTemplate(condition[op], ctx);
  const result =
    op === undefined ? isTruthy(actual) : applyOperator(op, actual, expected, condition.ref);
  if (trace && trace.checks.length >= MAX_RECORDED_CHECKS) trace.omitted += 1;
  else if (trace)
    trace.checks.push({
      ref: clip(condition.ref, CHECK_OPERAND_CHARS),
      op: op ?? "truthy",
      actual: operand(actual),
      ...(op === undefined ? {} : { expected: operand(expected) }),
      result,
    });
  return result;
}

/**
 * Why a condition is false, in words a person reads (`trigger.body.action is "opened", needs
 * "closed"`); null when it holds. Evaluates exactly as evaluateCondition does (and throws the
 * same ConditionError); `all` names its first false part, `any` every part.
 */
export function explainCondition(condition: Condition, ctx: TemplateContext): string | null {
  return explain(condition, ctx, 0);
}

function explain(condition: unknown, ctx: TemplateContext, depth: number): string | null {
  if (evaluate(condition, ctx, depth)) return null;
  const c = condition as Record<string, unknown>;
  if (Array.isArray(c.all)) {
    for (const child of c.all) {
      const why = explain(child, ctx, depth + 1);
      if (why) return why;
    }
  }
  if (Array.isArray(c.any))
    return `none of these holds: ${c.any.map((child) => explain(child, ctx, depth + 1)).join("; ")}`;
  if (hasOwn(c, "not")) return `${preview(c.not, 120)} holds, needs it not to`;
  const ref = c.ref as string;
  const actual = resolvePath(ref, ctx);
  const shown = actual === undefined ? "missing" : `is ${preview(actual)}`;
  const op = CONDITION_OPERATORS.find((o) => hasOwn(c, o));
  if (op === undefined) return `${ref} ${shown}, needs a non-empty value`;
  return `${ref} ${shown}, needs ${describeOperator(op, resolveTemplate(c[op], ctx))}`;
}

const OPERATOR_WORDS: Record<ConditionOperator, string> = {
  eq: "",
  neq: "anything but ",
  gt: "> ",
  gte: ">= ",
  lt: "< ",
  lte: "<= ",
  in: "one of ",
  contains: "to contain ",
  exists: "",
  matches: "to match ",
};

function describeOperator(op: ConditionOperator, expected: unknown): string {
  if (op === "exists") return expected === false ? "to be absent" : "a value";
  if (op === "matches" && isPlainObject(expected))
    return `to match /${String(expected.pattern)}/${String(expected.flags ?? "")}`;
  if (op === "matches") return `to match /${String(expected)}/`;
  return `${OPERATOR_WORDS[op]}${preview(expected)}`;
}

export function applyOperator(
  op: ConditionOperator,
  actual: unknown,
  expected: unknown,
  ref = "value",
): boolean {
  switch (op) {
    case "eq":
      return jsonEqual(actual, expected);
    case "neq":
      return !jsonEqual(actual, expected);
    case "gt":
      return compare(actual, expected, (c) => c > 0);
    case "gte":
      return compare(actual, expected, (c) => c >= 0);
    case "lt":
      return compare(actual, expected, (c) => c < 0);
    case "lte":
      return compare(actual, expected, (c) => c <= 0);
    case "in":
      return Array.isArray(expected) && expected.some((item) => jsonEqual(actual, item));
    case "contains":
      return contains(actual, expected);
    case "exists":
      return (actual !== undefined && actual !== null) === (expected !== false);
    case "matches":
      return matches(actual, expected, ref);
  }
}

/** Truthiness for "no operator" conditions; see the module comment for why [] and {} are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === "") return false;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return deepEqual(a === undefined ? null : a, b === undefined ? null : b);
}

function compare(a: unknown, b: unknown, test: (c: number) => boolean): boolean {
  if (typeof a === "number" && typeof b === "number")
    return !Number.isNaN(a) && !Number.isNaN(b) && test(a - b);
  if (typeof a === "string" && typeof b === "string") return test(a < b ? -1 : a > b ? 1 : 0);
  return false;
}

function contains(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "string") return typeof expected === "string" && actual.includes(expected);
  if (Array.isArray(actual)) return actual.some((item) => jsonEqual(item, expected));
  if (isPlainObject(actual)) return typeof expected === "string" && hasOwn(actual, expected);
  return false;
}

function matches(actual: unknown, spec: unknown, ref: string): boolean {
  if (typeof actual !== "string") return false;
  const pattern =
    typeof spec === "string"
      ? spec
      : isPlainObject(spec) && typeof spec.pattern === "string"
        ? spec.pattern
        : undefined;
  const flags = isPlainObject(spec) && typeof spec.flags === "string" ? spec.flags : "";
  if (pattern === undefined)
    throw new ConditionError(`"matches" on ${ref} needs a pattern string.`);
  const problem = regexProblem(pattern, flags);
  if (problem) throw new ConditionError(problem);
  if (actual.length > REGEX_MAX_SUBJECT_LENGTH) {
    throw new ConditionError(
      `"matches" on ${ref}: the value is ${actual.length} characters; regex conditions accept at most ${REGEX_MAX_SUBJECT_LENGTH}.`,
    );
  }
  return new RegExp(pattern, flags).test(actual);
}
