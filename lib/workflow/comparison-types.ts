/**
 * Types in conditions: what a reference is known to hold (the definition's input specs, literal
 * variables, task output schemas, the fixed output shapes of some step types), which value type
 * an operator wants, and the comparisons that can never hold because a number meets text
 * (`{ "ref": "input.amount", "gt": "100" }` is always false — conditions.ts does not coerce).
 * The editor's condition builder and the validator (COMPARISON_TYPE_MISMATCH) both use it.
 */
import { OPERATOR_SYMBOLS, type ConditionOperator } from "./conditions";
import { INPUT_TYPES, type InputType } from "./input-spec";
import { isPlainObject, preview } from "./json";
import { hasTemplate, parsePath } from "./templates";

export interface TypeScope {
  /** Input name → declared type. */
  readonly inputs: ReadonlyMap<string, InputType>;
  /** Variable name → the JSON type of its (constant) value. */
  readonly vars: ReadonlyMap<string, InputType>;
  /** Step id (loop bodies included) → its type and config. */
  readonly steps: ReadonlyMap<string, { type: string; config: Record<string, unknown> }>;
}

/** Types of fields inside `output.data` that a step type always produces. */
const FIXED_OUTPUT_FIELDS: Readonly<Record<string, Readonly<Record<string, InputType>>>> = {
  http: { status: "number", headers: "object" },
  script: { exitCode: "number", stdout: "string", stderr: "string" },
  approval: { decision: "string", decidedBy: "string", reason: "string", decidedAt: "string" },
};

export function jsonTypeOf(value: unknown): InputType | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  if (Array.isArray(value)) return "array";
  if (isPlainObject(value)) return "object";
  return undefined;
}

const isInputType = (t: unknown): t is InputType =>
  typeof t === "string" && (INPUT_TYPES as readonly string[]).includes(t);

/** Collects the declarations of a (possibly invalid) definition; never throws. */
export function typeScopeOf(definition: unknown): TypeScope {
  const root = isPlainObject(definition) ? definition : {};
  const inputs = new Map<string, InputType>();
  if (isPlainObject(root.inputs))
    for (const [name, spec] of Object.entries(root.inputs))
      if (isPlainObject(spec) && isInputType(spec.type)) inputs.set(name, spec.type);
  const vars = new Map<string, InputType>();
  if (isPlainObject(root.variables))
    for (const [name, value] of Object.entries(root.variables)) {
      const t = jsonTypeOf(value);
      if (t) vars.set(name, t);
    }
  const steps = new Map<string, { type: string; config: Record<string, unknown> }>();
  const walk = (list: unknown, depth: number) => {
    if (!Array.isArray(list) || depth > 16) return;
    for (const step of list) {
      if (!isPlainObject(step) || typeof step.id !== "string") continue;
      const config = isPlainObject(step.config) ? step.config : {};
      steps.set(step.id, { type: String(step.type), config });
      if (isPlainObject(config.body)) walk(config.body.steps, depth + 1);
    }
  };
  walk(root.steps, 0);
  return { inputs, vars, steps };
}

/** The type a reference path (`input.amount`, `steps.t.output.data.total`) is known to hold. */
export function referenceType(scope: TypeScope, ref: string): InputType | undefined {
  let path;
  try {
    path = parsePath(ref);
  } catch {
    return undefined;
  }
  const [first, second, third, fourth, ...rest] = path.segments;
  if (typeof first !== "string") return undefined;
  switch (path.root) {
    case "input":
      return second === undefined ? scope.inputs.get(first) : undefined;
    case "vars":
      return second === undefined ? scope.vars.get(first) : undefined;
    case "steps": {
      const step = scope.steps.get(first);
      if (!step) return undefined;
      if (second === "status") return third === undefined ? "string" : undefined;
      if (second !== "output" || third !== "data") return undefined;
      if (fourth === undefined) return step.type === "condition" ? "boolean" : undefined;
      if (typeof fourth !== "string" || rest.length > 0) return undefined;
      if (step.type === "task" && isPlainObject(step.config.outputSchema)) {
        const spec = step.config.outputSchema[fourth];
        return isPlainObject(spec) && isInputType(spec.type) ? spec.type : undefined;
      }
      return FIXED_OUTPUT_FIELDS[step.type]?.[fourth];
    }
    case "loop":
      return first === "index" && second === undefined ? "number" : undefined;
    default:
      return undefined;
  }
}

const ORDERING: ReadonlySet<ConditionOperator> = new Set(["gt", "gte", "lt", "lte"]);

/**
 * The type an operator's value should have: numbers for > ≥ < ≤ (text when the reference is
 * known to be text: ISO dates compare as text), the reference's own type for equals, a list for
 * "is one of", text for "matches", true/false for "exists"; undefined when anything goes.
 */
export function expectedValueType(
  op: ConditionOperator,
  refType: InputType | undefined,
): InputType | undefined {
  if (ORDERING.has(op)) return refType === "string" ? "string" : "number";
  switch (op) {
    case "eq":
    case "neq":
      return refType;
    case "in":
      return "array";
    case "contains":
      return refType === "string" ? "string" : undefined;
    case "matches":
      return "string";
    case "exists":
      return "boolean";
    default:
      return undefined;
  }
}

/** `"100"` → 100 when a number is expected and the text reads as one (likewise true/false). */
export function coerceLiteral(value: unknown, expected: InputType | undefined): unknown {
  if (typeof value !== "string" || hasTemplate(value)) return value;
  if (expected === "number" && isNumericText(value)) return Number(value);
  if (expected === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

export function isNumericText(text: string): boolean {
  return text.trim() !== "" && Number.isFinite(Number(text));
}

export interface ComparisonProblem {
  /** Path relative to the condition, e.g. ["all", 0, "gt"]. */
  readonly location: Array<string | number>;
  readonly message: string;
}

/** Operators whose value is compared with the reference for equality or order. */
const COMPARED: readonly ConditionOperator[] = ["eq", "neq", "gt", "gte", "lt", "lte", "in"];

/**
 * Comparisons in a condition that can never hold as the author meant: a number compared with
 * text (either way round), or an ordering operator given numeric text with no reference type to
 * say it is meant as text. Templated values are left out (their type is known only at run time).
 */
export function comparisonProblems(condition: unknown, scope: TypeScope): ComparisonProblem[] {
  const problems: ComparisonProblem[] = [];
  const visit = (node: unknown, at: Array<string | number>, depth: number) => {
    if (!isPlainObject(node) || depth > 32) return;
    for (const key of ["all", "any"] as const) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((c, i) => visit(c, [...at, key, i], depth + 1));
    }
    if ("not" in node) visit(node.not, [...at, "not"], depth + 1);
    if (typeof node.ref !== "string") return;
    const refType = referenceType(scope, node.ref);
    for (const op of COMPARED) {
      if (!Object.prototype.hasOwnProperty.call(node, op)) continue;
      const value = node[op];
      if (op === "in") {
        if (!Array.isArray(value)) continue;
        value.forEach((item, i) => {
          const why = mismatch(node.ref as string, refType, "eq", item);
          if (why) problems.push({ location: [...at, op, i], message: why });
        });
      } else {
        const why = mismatch(node.ref as string, refType, op, value);
        if (why) problems.push({ location: [...at, op], message: why });
      }
    }
  };
  visit(condition, [], 0);
  return problems;
}

const article = (t: InputType) => (t === "array" || t === "object" ? "an" : "a");
const named = (t: InputType) => (t === "string" ? "text" : `${article(t)} ${t}`);

function mismatch(
  ref: string,
  refType: InputType | undefined,
  op: ConditionOperator,
  value: unknown,
): string | null {
  if (typeof value === "string" && hasTemplate(value)) return null;
  const valueType = jsonTypeOf(value);
  const symbol = OPERATOR_SYMBOLS[op];
  const ordering = ORDERING.has(op);
  const never = ordering
    ? `${symbol} compares two numbers or two texts, so this is always false`
    : op === "eq"
      ? "values of different types are never equal, so this is always false"
      : "values of different types are never equal, so this is always true";
  const fix =
    typeof value === "string" && isNumericText(value)
      ? `; write ${value.trim()} without quotes`
      : "";
  if (refType && valueType && refType !== valueType && isScalar(refType) && isScalar(valueType))
    return `compares ${ref} (${named(refType)}) with ${describeLiteral(value)}: ${never}${refType === "number" ? fix : ""}.`;
  if (!refType && ordering && typeof value === "string" && isNumericText(value))
    return `compares ${ref} ${symbol} ${describeLiteral(value)}: a number value is never ${symbol} text (${symbol} compares two numbers or two texts)${fix}.`;
  return null;
}

const isScalar = (t: InputType) => t === "string" || t === "number" || t === "boolean";

function describeLiteral(value: unknown): string {
  return typeof value === "string"
    ? `the text ${preview(value)}`
    : `the ${jsonTypeOf(value)} ${preview(value)}`;
}
