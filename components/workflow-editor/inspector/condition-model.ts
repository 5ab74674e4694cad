/**
 * The `when` / condition builder's model (pure, unit-tested): condition JSON ⇄ a tree of leaves
 * (reference → operator → value), `all` / `any` groups and `not`, nested. Shapes the builder
 * cannot show faithfully (invalid conditions, extra keys) become `raw` nodes edited as JSON, so
 * `toCondition(toTree(c))` gives back exactly `c` — key order included.
 *
 * Edits work on the condition JSON by path (`updateNode`), not by rebuilding it from the tree:
 * an edit changes only the node edited, and every other part stays as written.
 */
import {
  coerceLiteral,
  expectedValueType,
  referenceType,
  type TypeScope,
} from "@/lib/workflow/comparison-types";
import { CONDITION_OPERATORS, type ConditionOperator } from "@/lib/workflow/conditions";
import type { InputType } from "@/lib/workflow/input-spec";
import { isPlainObject, type JsonValue } from "@/lib/workflow/json";

export type NodePath = readonly (string | number)[];

/** `truthy` is the leaf with no operator. */
export type LeafOperator = ConditionOperator | "truthy";

export type CondNode =
  | {
      readonly kind: "leaf";
      readonly path: NodePath;
      readonly ref: string;
      readonly op: LeafOperator;
      /** The operator's value (absent for truthy). */
      readonly value?: JsonValue;
      /** The leaf was written `{ "<op>": …, "ref": … }`; kept so the round trip is exact. */
      readonly opFirst: boolean;
    }
  | {
      readonly kind: "group";
      readonly path: NodePath;
      readonly mode: "all" | "any";
      readonly children: readonly CondNode[];
    }
  | { readonly kind: "not"; readonly path: NodePath; readonly child: CondNode }
  | {
      readonly kind: "raw";
      readonly path: NodePath;
      readonly value: unknown;
      readonly reason: string;
    };

export const OPERATOR_LABELS: Record<LeafOperator, string> = {
  truthy: "is truthy",
  eq: "equals",
  neq: "does not equal",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  in: "is one of",
  contains: "contains",
  exists: "exists",
  matches: "matches regex",
};

export const LEAF_OPERATORS: readonly LeafOperator[] = ["truthy", ...CONDITION_OPERATORS];

function rawNode(path: NodePath, value: unknown, reason: string): CondNode {
  return { kind: "raw", path, value, reason };
}

/** Condition JSON → builder tree. Never throws; unsupported parts become `raw` nodes. */
export function toTree(value: unknown, path: NodePath = []): CondNode {
  if (!isPlainObject(value)) return rawNode(path, value, "Not a condition object.");
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === "all" || keys[0] === "any")) {
    const mode = keys[0];
    const list = value[mode];
    if (!Array.isArray(list) || list.length === 0)
      return rawNode(path, value, `"${mode}" needs a non-empty list.`);
    return {
      kind: "group",
      path,
      mode,
      children: list.map((child, i) => toTree(child, [...path, mode, i])),
    };
  }
  if (keys.length === 1 && keys[0] === "not")
    return { kind: "not", path, child: toTree(value.not, [...path, "not"]) };
  // Structure only: a leaf with an empty ref or a bad regex stays a leaf, its issue shown by it.
  const ops = keys.filter((k) => (CONDITION_OPERATORS as readonly string[]).includes(k));
  const others = keys.filter((k) => k !== "ref" && !ops.includes(k));
  if (typeof value.ref !== "string" || ops.length > 1 || others.length > 0)
    return rawNode(
      path,
      value,
      typeof value.ref !== "string"
        ? 'A leaf needs a "ref" string.'
        : ops.length > 1
          ? `One operator per condition (found ${ops.join(", ")}); combine with "all".`
          : `Unknown key${others.length > 1 ? "s" : ""} ${others.map((k) => `"${k}"`).join(", ")}.`,
    );
  const op = ops[0] as ConditionOperator | undefined;
  if (op === "exists" && typeof value.exists !== "boolean")
    return rawNode(path, value, '"exists" takes true or false.');
  return {
    kind: "leaf",
    path,
    ref: value.ref,
    op: op ?? "truthy",
    ...(op ? { value: value[op] as JsonValue } : {}),
    opFirst: keys[0] !== "ref",
  };
}

/** Builder tree → condition JSON (the inverse of `toTree`). */
export function toCondition(node: CondNode): unknown {
  switch (node.kind) {
    case "raw":
      return node.value;
    case "not":
      return { not: toCondition(node.child) };
    case "group":
      return { [node.mode]: node.children.map(toCondition) };
    case "leaf": {
      if (node.op === "truthy") return { ref: node.ref };
      const op = { [node.op]: node.value ?? null };
      return node.opFirst ? { ...op, ref: node.ref } : { ref: node.ref, ...op };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Edits by path
// ---------------------------------------------------------------------------------------------

function getNode(root: unknown, path: NodePath): unknown {
  return path.reduce<unknown>(
    (at, key) => (isPlainObject(at) || Array.isArray(at) ? (at as never)[key] : undefined),
    root,
  );
}

/** Replaces the node at `path` (`undefined` removes it from its group). */
export function updateNode(root: unknown, path: NodePath, next: unknown): unknown {
  if (path.length === 0) return next;
  const [key, ...rest] = path;
  if (Array.isArray(root) && typeof key === "number") {
    const copy = [...root];
    if (rest.length === 0 && next === undefined) copy.splice(key, 1);
    else copy[key] = updateNode(copy[key], rest, next);
    return copy;
  }
  const obj = isPlainObject(root) ? root : {};
  return { ...obj, [key!]: updateNode(obj[String(key)], rest, next) };
}

/**
 * What a leaf's value should be: the type its reference is known to hold (input spec, task
 * output schema…, see lib/workflow/comparison-types.ts) and the type the operator wants.
 */
export function leafTypes(
  scope: TypeScope | undefined,
  ref: string,
  op: LeafOperator,
): { refType?: InputType; expected?: InputType } {
  const refType = scope ? referenceType(scope, ref) : undefined;
  const expected = op === "truthy" ? undefined : expectedValueType(op, refType);
  return { ...(refType ? { refType } : {}), ...(expected ? { expected } : {}) };
}

/**
 * A default value when switching a leaf to `op` (keeps the old one when it still fits); text
 * that reads as the `expected` type becomes it (`"100"` under > against a number is 100).
 */
export function valueForOperator(
  op: LeafOperator,
  previous: JsonValue | undefined,
  expected?: InputType,
): JsonValue | undefined {
  if (op === "truthy") return undefined;
  if (op === "exists") return typeof previous === "boolean" ? previous : true;
  if (op === "in")
    return Array.isArray(previous) ? previous : previous === undefined ? [] : [previous];
  if (op === "matches") return typeof previous === "string" ? previous : "";
  const kept = previous === undefined || Array.isArray(previous) ? "" : previous;
  return coerceLiteral(kept, expected) as JsonValue;
}

/** The leaf at `path` with another operator: the operator key keeps its place in the object. */
export function setLeafOperator(
  root: unknown,
  path: NodePath,
  op: LeafOperator,
  scope?: TypeScope,
): unknown {
  const leaf = getNode(root, path);
  if (!isPlainObject(leaf)) return root;
  const oldOp = Object.keys(leaf).find((k) => k !== "ref") as ConditionOperator | undefined;
  if ((oldOp ?? "truthy") === op) return root;
  const { expected } = leafTypes(scope, String(leaf.ref ?? ""), op);
  const value = valueForOperator(op, oldOp ? (leaf[oldOp] as JsonValue) : undefined, expected);
  const entries = Object.entries(leaf).filter(([k]) => k !== oldOp);
  if (op !== "truthy") {
    const at = oldOp ? Object.keys(leaf).indexOf(oldOp) : entries.length;
    entries.splice(at, 0, [op, value]);
  }
  return updateNode(root, path, Object.fromEntries(entries));
}

/** A new reference; text in the value that reads as the type now expected becomes it. */
export function setLeafRef(root: unknown, path: NodePath, ref: string, scope?: TypeScope): unknown {
  const leaf = getNode(root, path);
  if (!isPlainObject(leaf)) return root;
  const op = Object.keys(leaf).find((k) => k !== "ref") as ConditionOperator | undefined;
  if (!op || op === "in" || op === "exists" || op === "matches")
    return updateNode(root, path, { ...leaf, ref });
  const { expected } = leafTypes(scope, ref, op);
  return updateNode(root, path, { ...leaf, ref, [op]: coerceLiteral(leaf[op], expected) });
}

export function setLeafValue(root: unknown, path: NodePath, value: JsonValue): unknown {
  const leaf = getNode(root, path);
  if (!isPlainObject(leaf)) return root;
  const op = Object.keys(leaf).find((k) => k !== "ref");
  return op ? updateNode(root, path, { ...leaf, [op]: value }) : root;
}

/** `all` ⇄ `any` on a group (the list is kept). */
export function setGroupMode(root: unknown, path: NodePath, mode: "all" | "any"): unknown {
  const group = getNode(root, path);
  if (!isPlainObject(group)) return root;
  const old = "all" in group ? "all" : "any";
  return old === mode ? root : updateNode(root, path, { [mode]: group[old] });
}

export const newLeaf = (ref = ""): JsonValue => ({ ref, eq: "" });

/** Appends a child (a new leaf by default) to the group at `path`. */
export function addChild(root: unknown, path: NodePath, child: unknown = newLeaf()): unknown {
  const group = getNode(root, path);
  if (!isPlainObject(group)) return root;
  const mode = "all" in group ? "all" : "any";
  const list = Array.isArray(group[mode]) ? (group[mode] as unknown[]) : [];
  return updateNode(root, path, { [mode]: [...list, child] });
}

/**
 * Removes the node at `path`. A group left with one child is replaced by that child (`all` of
 * one condition is that condition); removing the child of a `not` removes the `not`; removing
 * the root gives `undefined` (no condition).
 */
export function removeNode(root: unknown, path: NodePath): unknown {
  if (path.length === 0) return undefined;
  const parentKey = path[path.length - 2];
  if (path[path.length - 1] === "not") return removeNode(root, path.slice(0, -1));
  if (typeof path[path.length - 1] === "number" && (parentKey === "all" || parentKey === "any")) {
    const groupPath = path.slice(0, -2);
    const list = getNode(root, [...groupPath, parentKey]);
    if (Array.isArray(list) && list.length === 2) {
      const keep = list[path[path.length - 1] === 0 ? 1 : 0];
      return updateNode(root, groupPath, keep);
    }
    if (Array.isArray(list) && list.length === 1) return removeNode(root, groupPath);
  }
  return updateNode(root, path, undefined);
}

/** Wraps the node at `path` in a group (`all`/`any`) with a new empty leaf, or in `not`. */
export function wrapNode(root: unknown, path: NodePath, wrapper: "all" | "any" | "not"): unknown {
  const node = getNode(root, path);
  return updateNode(
    root,
    path,
    wrapper === "not" ? { not: node } : { [wrapper]: [node, newLeaf()] },
  );
}

/** Removes a `not` around a node. */
export function unwrapNot(root: unknown, path: NodePath): unknown {
  const node = getNode(root, path);
  return isPlainObject(node) && "not" in node ? updateNode(root, path, node.not) : root;
}

// ---------------------------------------------------------------------------------------------
// Leaf values as the builder edits them
// ---------------------------------------------------------------------------------------------

export type ValueType = "string" | "number" | "boolean" | "null" | "json";

/**
 * The type the builder shows for a leaf's value: its JSON type, except that an empty text
 * under an operator that expects a number shows as a number (what the person will type).
 */
export function shownValueType(
  value: JsonValue | undefined,
  expected: InputType | undefined,
): ValueType {
  if (value === "" && expected === "number") return "number";
  return valueTypeOf(value);
}

/**
 * What typing `text` into a value field of type `shown` saves: a number when it reads as one and
 * a number is shown or expected (so `100` under > is never saved as "100", which would always
 * be false), the text otherwise — so a half-typed "-" or "1e" stays editable.
 */
export function typedValue(text: string, shown: ValueType, expected?: InputType): JsonValue {
  return shown === "number" || expected === "number"
    ? (coerceLiteral(text, "number") as JsonValue)
    : text;
}

export function valueTypeOf(value: JsonValue | undefined): ValueType {
  if (value === null) return "null";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  return "json";
}

/** Converts a value to another type, keeping what can be kept (`"3"` → 3). */
export function convertValue(value: JsonValue | undefined, type: ValueType): JsonValue {
  switch (type) {
    case "string":
      return value === undefined || value === null
        ? ""
        : typeof value === "string"
          ? value
          : JSON.stringify(value);
    case "number": {
      const n = typeof value === "number" ? value : Number(value);
      return Number.isFinite(n) ? n : 0;
    }
    case "boolean":
      return value === true || value === "true";
    case "null":
      return null;
    case "json":
      return value ?? null;
  }
}
