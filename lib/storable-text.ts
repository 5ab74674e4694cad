/**
 * Text Postgres cannot store. `text` and `jsonb` refuse the NUL character (U+0000), and `jsonb`
 * refuses lone UTF-16 surrogates (half of a pair, e.g. "\uD800" without its partner). Left alone,
 * such input reaches the database and comes back as a driver error — a 500 for what is bad input.
 * Every transport checks incoming values with `unstorableText` and answers 400 naming the field.
 */

export interface UnstorableText {
  /** Where in the value: object keys and array indexes from the root. */
  readonly path: (string | number)[];
  readonly message: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Walks at most this deep; deeper nesting is refused elsewhere (JSON depth limits). */
const MAX_DEPTH = 256;

function problemOf(text: string): string | null {
  if (text.includes("\u0000"))
    return "contains a NUL character (\\u0000), which cannot be stored; remove it";
  if (LONE_SURROGATE.test(text))
    return "contains an unpaired UTF-16 surrogate (broken Unicode), which cannot be stored";
  return null;
}

/** The first string (value or object key) that cannot be stored, or null. */
export function unstorableText(value: unknown): UnstorableText | null {
  const path: (string | number)[] = [];
  const walk = (v: unknown, depth: number): UnstorableText | null => {
    if (typeof v === "string") {
      const message = problemOf(v);
      return message ? { path: [...path], message: `The text ${message}` } : null;
    }
    if (v === null || typeof v !== "object" || depth >= MAX_DEPTH) return null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const found = walk(v[i], depth + 1);
        path.pop();
        if (found) return found;
      }
      return null;
    }
    if (v instanceof Date) return null;
    for (const key of Object.keys(v)) {
      const keyProblem = problemOf(key);
      if (keyProblem) return { path: [...path, key], message: `The key ${keyProblem}` };
      path.push(key);
      const found = walk((v as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (found) return found;
    }
    return null;
  };
  return walk(value, 0);
}

/** "at input.name" style location for messages. */
export function describePath(path: readonly (string | number)[]): string {
  return path.length ? path.map(String).join(".") : "the value";
}
