import { clip, MAX_JSON_DEPTH } from "./workflow/json";

/**
 * Nesting depth of JSON text, measured before `JSON.parse`. V8 parses 100,000 levels happily, but
 * everything after it that recurses — JSON.stringify on the way to a jsonb column, superjson,
 * structured clones — overflows the stack at a few thousand: a 500 for what is bad input. So every
 * transport measures the raw text first (one pass, no recursion, no allocation per level beyond a
 * small frame) and refuses what nests deeper than the limit, naming where.
 */

export interface JsonDepthExcess {
  /** Keys and indexes from the root to the first container past the limit. */
  readonly path: (string | number)[];
}

/** A refusal for text nested too deep: `path` inside the value, `message` says what and where. */
export interface JsonDepthRefusal {
  readonly path: (string | number)[];
  /** The envelope's own keys above `path` (e.g. the batch index of a tRPC call). */
  readonly envelopePath: (string | number)[];
  /** `path` for a message: dotted, clipped (`data.a.a.…`). */
  readonly where: string;
  /** What is wrong, worded as the run input check words it (jsonProblem). */
  readonly message: string;
}

/**
 * The refusal every transport answers (400) when a body or input nests deeper than
 * MAX_JSON_DEPTH — the run input limit — or null. `envelope` is how many levels the transport's
 * own wrapping adds around the value (tRPC's `{"0":{"json":…}}`, JSON-RPC's `params.arguments`);
 * they are not counted, and the path starts inside them.
 */
export function deepJsonRefusal(text: string, envelope = 0): JsonDepthRefusal | null {
  const excess = jsonTextDepthExcess(text, MAX_JSON_DEPTH + envelope);
  if (!excess) return null;
  const path = excess.path.slice(envelope).map((s) => (typeof s === "string" ? clip(s) : s));
  return {
    path,
    envelopePath: excess.path.slice(0, envelope),
    where: clip(path.join(".")),
    message: `nesting deeper than ${MAX_JSON_DEPTH} levels; flatten it`,
  };
}

interface Frame {
  readonly isArray: boolean;
  /** Array: the current element's index. */
  index: number;
  /** Object: the raw text of the current member's key (quotes and escapes included). */
  key: string;
  /** Object: the next string is a key (after `{` or `,`, before `:`). */
  expectsKey: boolean;
}

function segmentOf(frame: Frame): string | number {
  if (frame.isArray) return frame.index;
  try {
    return JSON.parse(frame.key) as string;
  } catch {
    return frame.key.slice(1, -1);
  }
}

/**
 * Where `text` first nests more than `maxDepth` containers (objects or arrays) deep, or null. The
 * same measure as jsonProblem (lib/workflow/json.ts): `maxDepth` nested containers are fine, one
 * more is not. Only structure is scanned (strings are skipped, escapes respected); malformed text
 * is left for JSON.parse to describe, except that unbalanced openers still count.
 */
export function jsonTextDepthExcess(text: string, maxDepth: number): JsonDepthExcess | null {
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i + 1);
      const top = stack[stack.length - 1];
      if (top && !top.isArray && top.expectsKey) {
        top.key = text.slice(i, end + 1);
        top.expectsKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) return { path: stack.map(segmentOf) };
      stack.push({ isArray: c === 0x5b, index: 0, key: '""', expectsKey: c === 0x7b });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.isArray) top.index += 1;
      else if (top) top.expectsKey = true;
    }
    i += 1;
  }
  return null;
}

/** Index of the quote closing a string whose content starts at `from` (text length if none). */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    const q = text.indexOf('"', at);
    if (q < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c /* \ */) backslashes += 1;
    if (backslashes % 2 === 0) return q;
    at = q + 1;
  }
}
