/**
 * Free text people give things — names of workflows, triggers, workspaces, tokens; descriptions —
 * checked by one rule. Postgres cannot store NUL in a text column (a 500 once it gets there), other
 * control characters corrupt logs and terminals, and bidi overrides and zero-width characters make
 * a name read as another one, or as nothing ("Pay\u202Eroll.exe", a name of three U+200B). Like
 * step ids, which admit a-z, 0-9 and _ only, such names are refused, not silently rewritten; the
 * message names the character and where it is.
 */
import type { z } from "zod";

/** C0 controls and DEL/C1; tab, LF and CR are allowed where text may span lines. */
const CONTROL_IN_LINE = /[\u0000-\u001F\u007F-\u009F]/;
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** Invisible characters with a name a person can look up, by code point. */
const INVISIBLE: ReadonlyMap<number, string> = new Map([
  [0x061c, "arabic letter mark"],
  [0x200b, "zero-width space"],
  [0x200c, "zero-width non-joiner"],
  [0x200d, "zero-width joiner"],
  [0x200e, "left-to-right mark"],
  [0x200f, "right-to-left mark"],
  [0x202a, "left-to-right embedding"],
  [0x202b, "right-to-left embedding"],
  [0x202c, "pop directional formatting"],
  [0x202d, "left-to-right override"],
  [0x202e, "right-to-left override"],
  [0x2060, "word joiner"],
  [0x2066, "left-to-right isolate"],
  [0x2067, "right-to-left isolate"],
  [0x2068, "first strong isolate"],
  [0x2069, "pop directional isolate"],
  [0xfeff, "zero-width no-break space (BOM)"],
]);
const INVISIBLE_RE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
const JOINERS = new Set([0x200c, 0x200d]);

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * A joiner (U+200C/U+200D) between two visible non-ASCII characters does real work — emoji
 * sequences (👩‍💻), Persian and Indic spelling — and is kept; anywhere else it only hides.
 */
function isWorkingJoiner(text: string, at: number): boolean {
  const before = text.codePointAt(at - 1 - (isLowSurrogate(text.charCodeAt(at - 1)) ? 1 : 0));
  const after = text.codePointAt(at + 1);
  const visibleNonAscii = (c: number | undefined) =>
    c !== undefined && c > 0x7f && !INVISIBLE.has(c) && !/\s/u.test(String.fromCodePoint(c));
  return visibleNonAscii(before) && visibleNonAscii(after);
}
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Why `text` cannot be used as a name (`multiline: false`) or free text (`multiline: true`), or
 * null. Free text may hold tab and line breaks, and the invisible characters (a description may
 * quote right-to-left prose); names hold neither, and must have something visible.
 */
export function textProblem(text: string, opts: { multiline?: boolean } = {}): string | null {
  const control = (opts.multiline ? CONTROL_IN_TEXT : CONTROL_IN_LINE).exec(text);
  if (control) {
    const code = control[0].charCodeAt(0);
    return code === 0
      ? `contains a NUL character (U+0000) at position ${control.index + 1}, which cannot be stored; remove it`
      : `contains a control character (${hex(code)}) at position ${control.index + 1}; remove it`;
  }
  if (opts.multiline) return null;
  let hidden: { code: number; at: number } | undefined;
  for (const m of text.matchAll(INVISIBLE_RE)) {
    const code = m[0].charCodeAt(0);
    if (JOINERS.has(code) && isWorkingJoiner(text, m.index)) continue;
    hidden ??= { code, at: m.index };
  }
  if (text.replace(INVISIBLE_RE, "").trim() === "" && text !== "")
    return "has no visible characters";
  if (hidden)
    return `contains an invisible character, ${INVISIBLE.get(hidden.code)} (${hex(hidden.code)}), at position ${hidden.at + 1}; remove it`;
  return null;
}

/**
 * The one refinement for names and free text in contracts (lib/schemas, the definition schema):
 * `plainText(z.string().trim().min(1).max(200))` for a name, `{ multiline: true }` for text.
 */
export function plainText<T extends z.ZodString>(schema: T, opts: { multiline?: boolean } = {}): T {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value, opts);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
  }) as T;
}
