/**
 * Small JSON helpers shared by the workflow model: the JSON value type, a non-recursive shape
 * check (deep or cyclic input must produce an error, never a stack overflow), deep equality,
 * canonical serialisation and prototype-pollution guards.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Keys that must never be followed or written: following them reaches Object.prototype. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  "__proto__",
  "prototype",
  "constructor",
]);

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
 * no `__proto__` keys, depth ≤ maxDepth. Recursion is bounded by maxDepth, so hostile nesting
 * cannot blow the stack; it allocates nothing on the happy path (it runs for every JSON field).
 */
export function jsonProblem(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
  allowProtoKeys = false,
): string | null {
  return problemAt(value, 0, maxDepth, allowProtoKeys);
}

function problemAt(
  value: unknown,
  depth: number,
  maxDepth: number,
  allowProtoKeys: boolean,
): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number")
    return Number.isFinite(value) ? null : `${value} is not a JSON number`;
  if (depth >= maxDepth) return `nesting deeper than ${maxDepth} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = problemAt(value[i], depth + 1, maxDepth, allowProtoKeys);
      if (problem) return problem;
    }
    return null;
  }
  if (!isPlainObject(value)) return `${describeType(value)} is not a JSON value`;
  for (const key in value) {
    if (!hasOwn(value, key)) continue;
    if (key === "__proto__" && !allowProtoKeys) return 'the key "__proto__" is not allowed';
    const problem = problemAt(value[key], depth + 1, maxDepth, allowProtoKeys);
    if (problem) return problem;
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
 * RFC 8785 for finite numbers). Throws on values that are not JSON. Implemented as a sorted copy
 * handed to the native JSON.stringify: measured faster than building the string in JS, and far
 * faster than an array replacer (which scans the whole key list for every object).
 */
export function canonicalStringify(value: unknown): string {
  return JSON.stringify(sortedCopy(value, 0));
}

function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new TypeError(`canonicalStringify: ${value} is not a JSON number`);
    return value;
  }
  if (depth > 256) throw new TypeError("canonicalStringify: value is nested too deeply");
  if (Array.isArray(value))
    return value.map((item) => (item === undefined ? null : sortedCopy(item, depth + 1)));
  if (!isPlainObject(value))
    throw new TypeError(`canonicalStringify: ${describeType(value)} is not a JSON value`);
  // The default sort compares UTF-16 code units, which is the order RFC 8785 asks for.
  const keys = Object.keys(value).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const member = value[key];
    if (member === undefined) continue;
    // defineProperty keeps a "__proto__" key an ordinary member instead of a prototype write.
    if (key === "__proto__")
      Object.defineProperty(out, key, {
        value: sortedCopy(member, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = sortedCopy(member, depth + 1);
  }
  return out;
}

/** Human name of a value's type for error messages ("a number", "null", "an array"). */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object")
    return isPlainObject(value)
      ? "an object"
      : `a ${value.constructor?.name ?? "non-plain"} object`;
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return `a ${typeof value}`;
}

/** Short preview of a value for messages; never dumps a large object. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text =
      typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = describeType(value);
  }
  return clip(text, max);
}

/** The most of a caller's text (an id, a key, a value) any message quotes. */
export const MAX_QUOTED_CHARS = 200;

/**
 * `text` cut to `max` characters with an ellipsis, for messages that echo what was sent: a
 * 10,000-character id must not come back whole. Never splits a surrogate pair (a lone half
 * could not be stored with the message).
 */
export function clip(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `"text"`, clipped: how messages quote a caller's id, key or name. */
export function quote(text: unknown): string {
  return `"${clip(String(text))}"`;
}

/** Value at a path inside a JSON-like value, following own properties only. */
export function getAtPath(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current =
      Array.isArray(current) && typeof segment === "number"
        ? current[segment]
        : getOwn(current, String(segment));
  }
  return current;
}

export interface InputShape {
  readonly depthExceeded: boolean;
  readonly nodesExceeded: boolean;
  /** Paths of every own `__proto__` key (JSON.parse creates them as ordinary members). */
  readonly protoKeyPaths: Array<Array<string | number>>;
}

/**
 * Size, depth and `__proto__` keys of an arbitrary value in one walk. Recursion stops at
 * maxDepth (so cycles and hostile nesting end there); one mutable path is pushed and popped and
 * copied only for `__proto__` hits, which keeps the walk allocation-free on normal input.
 */
export function inspectInput(root: unknown, maxDepth: number, maxNodes: number): InputShape {
  const state = {
    nodes: 0,
    depthExceeded: false,
    nodesExceeded: false,
    protoKeyPaths: [] as Array<Array<string | number>>,
  };
  const path: Array<string | number> = [];
  const visit = (value: unknown, depth: number): boolean => {
    state.nodes += 1;
    if (state.nodes > maxNodes) return !(state.nodesExceeded = true);
    if (value === null || typeof value !== "object") return true;
    if (depth >= maxDepth) return !(state.depthExceeded = true);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        const ok = visit(value[i], depth + 1);
        path.pop();
        if (!ok) return false;
      }
      return true;
    }
    for (const key of Object.keys(value)) {
      path.push(key);
      const ok =
        key === "__proto__"
          ? (state.protoKeyPaths.push([...path]), true)
          : visit((value as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (!ok) return false;
    }
    return true;
  };
  visit(root, 0);
  return {
    depthExceeded: state.depthExceeded,
    nodesExceeded: state.nodesExceeded,
    protoKeyPaths: state.protoKeyPaths,
  };
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
  // Nobody mistypes a word this long, and the edit distance is quadratic in it.
  if (word.length > MAX_QUOTED_CHARS) return undefined;
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
  return hint === undefined ? "" : ` Did you mean ${quote(hint)}?`;
}
