/**
 * Text Postgres cannot store. `text` and `jsonb` refuse the NUL character (U+0000), and `jsonb`
 * refuses lone UTF-16 surrogates (half of a pair, e.g. "\uD800" without its partner). Left alone,
 * such input reaches the database and comes back as a driver error — a 500 for what is bad input.
 * Every transport checks incoming values with `unstorableText` and answers 400 naming the field.
 */

import { clip } from "./workflow/json";

export interface UnstorableText {
  /** Where in the value: object keys and array indexes from the root. */
  readonly path: (string | number)[];
  readonly message: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE, "g");
function problemOf(text: string): string | null {
  if (text.includes("\u0000"))
    return "contains a NUL character (\\u0000), which cannot be stored; remove it";
  if (LONE_SURROGATE.test(text))
    return "contains an unpaired UTF-16 surrogate (broken Unicode), which cannot be stored";
  return null;
}

/**
 * The first string (value or object key) that cannot be stored, or null. Iterative, with no depth
 * limit: a NUL 300 levels down reaches the database as surely as one at the top (drafts and
 * webhook bodies have no nesting limit of their own).
 */
export function unstorableText(value: unknown): UnstorableText | null {
  interface Frame {
    readonly v: unknown;
    readonly parent: Frame | null;
    readonly seg: string | number;
    /** A key to check (the frame's value is not walked). */
    readonly isKey?: boolean;
  }
  const pathOf = (f: Frame): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let at: Frame | null = f; at?.parent; at = at.parent) path.push(at.seg);
    return path.reverse();
  };
  const seen = new Set<object>();
  const stack: Frame[] = [{ v: value, parent: null, seg: "" }];
  while (stack.length) {
    const f = stack.pop()!;
    if (f.isKey) {
      const keyProblem = problemOf(f.seg as string);
      if (keyProblem) return { path: pathOf(f), message: `The key ${keyProblem}` };
      continue;
    }
    const v = f.v;
    if (typeof v === "string") {
      const message = problemOf(v);
      if (message) return { path: pathOf(f), message: `The text ${message}` };
      continue;
    }
    if (v === null || typeof v !== "object" || v instanceof Date || seen.has(v)) continue;
    seen.add(v);
    // Pushed in reverse so they pop in order: each key is checked just before its value.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], parent: f, seg: i });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ v: (v as Record<string, unknown>)[key], parent: f, seg: key });
      stack.push({ v: undefined, parent: f, seg: key, isKey: true });
    }
  }
  return null;
}

/**
 * A copy of `value` whose strings and keys Postgres can store: NUL and lone surrogates become
 * U+FFFD. For records of what was received (delivery logs), which must be written even when the
 * request itself is refused for holding such text.
 */
export function storableCopy<T>(value: T): T {
  const fix = (text: string) =>
    problemOf(text) === null
      ? text
      : text.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATES, "\uFFFD");
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object" || v instanceof Date) return v;
    return Object.fromEntries(Object.entries(v).map(([k, c]) => [fix(k), walk(c)]));
  };
  return walk(value) as T;
}

/** "at input.name" style location for messages (clipped: keys are the caller's text). */
export function describePath(path: readonly (string | number)[]): string {
  return path.length ? clip(path.map(String).join(".")) : "the value";
}
