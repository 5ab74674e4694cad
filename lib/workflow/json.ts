/**
 * Small JSON helpers shared by the workflow model: the JSON value type, a non-recursive shape
 * check (deep or cyclic input must produce an error, never a stack overflow), deep equality,
 * canonical serialisation and prototype-pollution guards.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Keys that must never be followed or written: following them reaches Object.prototype. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

/** Nesting limit for definitions: generous for real configs, far below any engine's stack limit. */
export const MAX_JSON_DEPTH = 64;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Reads an own property only; inherited members such as `constructor` read as undefined. */
export function getOwn(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== "object") return undefined;
  return hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * Why a value is not JSON, or null when it is: finite numbers only, plain objects and arrays only,
 * no `__proto__` keys, depth ≤ MAX_JSON_DEPTH. Iterative so hostile input cannot blow the stack.
 */
export function jsonProblem(root: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return `${value} is not a JSON number`;
      continue;
    }
    if (depth >= maxDepth) return `nesting deeper than ${maxDepth} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    if (!isPlainObject(value)) return `${describeType(value)} is not a JSON value`;
    for (const key of Object.keys(value)) {
      if (key === "__proto__") return 'the key "__proto__" is not allowed';
      stack.push({ value: value[key], depth: depth + 1 });
    }
  }
  return null;
}

export function isJsonValue(value: unknown): value is JsonValue {
  return jsonProblem(value) === null;
}

/** Structural equality of JSON-like values (object key order ignored, array order significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const aKeys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bKeys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((k) => hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/**
 * Canonical JSON: object keys sorted by UTF-16 code units (as RFC 8785 does), `undefined` members
 * dropped, no whitespace, numbers and strings as JSON.stringify writes them (which matches
 * RFC 8785 for finite numbers). Throws on values that are not JSON.
 */
export function canonicalStringify(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out, 0);
  return out.join("");
}

function writeCanonical(value: unknown, out: string[], depth: number): void {
  if (depth > 256) throw new TypeError("canonicalStringify: value is nested too deeply");
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonicalStringify: ${value} is not a JSON number`);
    out.push(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, i) => {
      if (i > 0) out.push(",");
      writeCanonical(item === undefined ? null : item, out, depth + 1);
    });
    out.push("]");
    return;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort(compareCodeUnits);
    out.push("{");
    keys.forEach((key, i) => {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(key), ":");
      writeCanonical(value[key], out, depth + 1);
    });
    out.push("}");
    return;
  }
  throw new TypeError(`canonicalStringify: ${describeType(value)} is not a JSON value`);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Human name of a value's type for error messages ("a number", "null", "an array"). */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return isPlainObject(value) ? "an object" : `a ${value.constructor?.name ?? "non-plain"} object`;
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return `a ${typeof value}`;
}

/** Short preview of a value for messages; never dumps a large object. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  } catch {
    text = describeType(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Value at a path inside a JSON-like value, following own properties only. */
export function getAtPath(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) && typeof segment === "number" ? current[segment] : getOwn(current, String(segment));
  }
  return current;
}

/** Shape and size of an arbitrary value, measured without recursion (cycles stop at maxDepth). */
export function measure(root: unknown, maxDepth: number, maxNodes: number): { depthExceeded: boolean; nodesExceeded: boolean } {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    nodes += 1;
    if (nodes > maxNodes) return { depthExceeded: false, nodesExceeded: true };
    if (value === null || typeof value !== "object") continue;
    if (depth >= maxDepth) return { depthExceeded: true, nodesExceeded: false };
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return { depthExceeded: false, nodesExceeded: false };
}

/** Levenshtein distance, used for "did you mean" hints on short identifiers. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The closest candidate within a small edit distance, for "did you mean …?" hints. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  // Up to one edit per three characters, and never a whole-word replacement ("c" is not "a").
  let bestDistance = Math.min(Math.max(1, Math.floor(word.length / 3)), word.length - 1) + 1;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance && d < candidate.length) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

export function didYouMean(word: string, candidates: Iterable<string>): string {
  const hint = closest(word, candidates);
  return hint === undefined ? "" : ` Did you mean "${hint}"?`;
}
