/** Evaluating conditions against a run context, with a trace of each check and a reason when false. */
import { clip, deepEqual, describeType, hasOwn, isPlainObject, preview } from "./json";
import { resolvePath, resolveTemplate, type TemplateContext } from "./template-resolve";
import {
  CONDITION_MAX_DEPTH,
  CONDITION_OPERATORS,
  ConditionError,
  type Condition,
  type ConditionOperator,
} from "./conditions";
import { regexProblem, REGEX_MAX_SUBJECT_LENGTH } from "./condition-regex";

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
