/**
 * Regex conditions stay cheap: patterns and subjects are capped, and patterns with a nested
 * unbounded quantifier (catastrophic backtracking, e.g. (a+)+) are refused.
 */
import { preview, quote } from "./json";

export const REGEX_MAX_PATTERN_LENGTH = 256;
export const REGEX_MAX_SUBJECT_LENGTH = 10_000;

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
