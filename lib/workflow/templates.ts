/**
 * `{{ path }}` templates (SPEC §3). Paths only — there is no expression language, so a definition
 * can never execute code through a template. A path is a root followed by `.name`, `.0`, `[0]` or
 * `["any key"]` segments. `\{{` writes a literal `{{`.
 *
 * Resolution rules (documented in docs/workflow-language.md):
 * - A string that is exactly one `{{ path }}` (whitespace allowed inside the braces only) yields
 *   the raw value with its type; any other string is interpolated: strings as-is, numbers and
 *   booleans via String(), objects/arrays as JSON, null/undefined as "".
 * - Missing paths resolve to `undefined` (raw) or "" (interpolated); `strict: true` throws a
 *   TemplateResolutionError naming the first segment that was missing.
 * - Only own properties are followed; `__proto__`, `prototype` and `constructor` are refused at
 *   parse time. Resolved values are never re-scanned, so data cannot inject templates.
 * - Secrets resolve through a caller-provided resolver and a missing secret always throws, in
 *   strict mode or not: silently sending "" instead of an API key is never what anyone wants.
 */
import { LRUCache } from "lru-cache";
import { clip, FORBIDDEN_KEYS } from "./json";

export const TEMPLATE_ROOTS = [
  "input",
  "vars",
  "steps",
  "lastOutput",
  "loop",
  "run",
  "trigger",
  "secrets",
] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];

/** What a loop body sees under `loop.` (docs/workflow-language.md §Loops). */
export const LOOP_FIELDS = ["item", "index", "items", "state", "batch"] as const;
export type LoopField = (typeof LOOP_FIELDS)[number];

export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;
export const MAX_PATH_SEGMENTS = 64;
export const MAX_PATH_LENGTH = 1024;

export type PathSegment = string | number;

export interface TemplatePath {
  /** The path as written, trimmed (e.g. `steps.fetch.output.data.items[0]`). */
  readonly source: string;
  readonly root: TemplateRoot;
  /** Segments after the root; numbers come from `[0]` index syntax. */
  readonly segments: readonly PathSegment[];
}

export type TemplateReference =
  | { readonly root: "input"; readonly name?: string; readonly path: TemplatePath }
  | { readonly root: "vars"; readonly name?: string; readonly path: TemplatePath }
  | {
      readonly root: "steps";
      readonly stepId: string;
      readonly field: "output" | "status";
      readonly path: TemplatePath;
    }
  | { readonly root: "lastOutput"; readonly path: TemplatePath }
  | { readonly root: "loop"; readonly field: LoopField; readonly path: TemplatePath }
  | { readonly root: "run"; readonly field: "id" | "workflowId"; readonly path: TemplatePath }
  | { readonly root: "trigger"; readonly path: TemplatePath }
  | { readonly root: "secrets"; readonly name: string; readonly path: TemplatePath };

export type TemplatePart =
  | { readonly kind: "literal"; readonly text: string }
  | {
      readonly kind: "expression";
      readonly reference: TemplateReference;
      readonly start: number;
      readonly end: number;
    };

export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  /** True when the string is exactly one `{{ path }}`: resolution keeps the value's type. */
  readonly isRaw: boolean;
}

export type TemplateErrorCode =
  "INVALID_TEMPLATE" | "UNKNOWN_TEMPLATE_ROOT" | "INVALID_SECRET_REFERENCE";

export class TemplateSyntaxError extends Error {
  override readonly name = "TemplateSyntaxError";
  constructor(
    message: string,
    readonly code: TemplateErrorCode,
    /** Character offset in the template string where the problem starts. */
    readonly offset: number,
  ) {
    super(message);
  }
}

export class TemplateResolutionError extends Error {
  override readonly name = "TemplateResolutionError";
  constructor(
    message: string,
    /** The full path that failed, as written. */
    readonly path: string,
    readonly code: "MISSING_PATH" | "SECRET_UNAVAILABLE",
  ) {
    super(message);
  }
}

/** Cheap pre-check: strings without `{{` are plain literals. */
export function hasTemplate(text: string): boolean {
  return text.includes("{{");
}

// Parsed templates are immutable and hot at run time (a loop resolves the same config per item),
// so they are cached, least recently used first out.
const CACHE_LIMIT = 4096;
const cache = new LRUCache<string, ParsedTemplate>({ max: CACHE_LIMIT });

/** Parses a string into literal and expression parts; throws TemplateSyntaxError. */
export function parseTemplate(text: string): ParsedTemplate {
  const cached = cache.get(text);
  if (cached) return cached;
  const parsed = parseUncached(text);
  cache.set(text, parsed);
  return parsed;
}

export function tryParseTemplate(
  text: string,
): { ok: true; template: ParsedTemplate } | { ok: false; error: TemplateSyntaxError } {
  try {
    return { ok: true, template: parseTemplate(text) };
  } catch (error) {
    if (error instanceof TemplateSyntaxError) return { ok: false, error };
    throw error;
  }
}

function parseUncached(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("\\{{", i)) {
      literal += "{{";
      i += 3;
      continue;
    }
    if (!text.startsWith("{{", i)) {
      literal += text[i];
      i += 1;
      continue;
    }
    const close = findClose(text, i + 2);
    if (close < 0)
      throw new TemplateSyntaxError(
        `Unclosed "{{" at offset ${i} in ${quoteTemplateText(text)}; close it with "}}" or write "\\{{" for a literal "{{".`,
        "INVALID_TEMPLATE",
        i,
      );
    if (literal) parts.push({ kind: "literal", text: literal });
    literal = "";
    const reference = parseReference(text.slice(i + 2, close), i + 2);
    parts.push({ kind: "expression", reference, start: i, end: close + 2 });
    i = close + 2;
  }
  if (literal) parts.push({ kind: "literal", text: literal });
  const isRaw = parts.length === 1 && parts[0]!.kind === "expression";
  return Object.freeze({ parts: Object.freeze(parts), isRaw });
}

/** Index of the `}}` closing an expression, skipping quoted bracket keys; -1 when unclosed. */
function findClose(text: string, from: number): number {
  let quoteChar: string | null = null;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quoteChar) {
      if (ch === "\\") i += 1;
      else if (ch === quoteChar) quoteChar = null;
      continue;
    }
    if (ch === '"' || ch === "'") quoteChar = ch;
    else if (ch === "{" && text[i + 1] === "{") return -1;
    else if (ch === "}" && text[i + 1] === "}") return i;
  }
  return -1;
}

/** Parses a bare path (used by conditions' `ref`); throws TemplateSyntaxError. */
export function parsePath(source: string, offset = 0): TemplatePath {
  const text = source.trim();
  const at = offset + source.indexOf(text);
  if (text === "")
    throw new TemplateSyntaxError(
      "Empty path: write a reference such as input.name or steps.fetch.output.data.",
      "INVALID_TEMPLATE",
      offset,
    );
  if (text.length > MAX_PATH_LENGTH)
    throw new TemplateSyntaxError(
      `Path is longer than ${MAX_PATH_LENGTH} characters.`,
      "INVALID_TEMPLATE",
      at,
    );
  const rootMatch = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text);
  if (!rootMatch)
    throw new TemplateSyntaxError(
      `Invalid path ${quoteTemplateText(text)}: it must start with one of ${TEMPLATE_ROOTS.join(", ")}. Templates hold paths only, not code.`,
      "INVALID_TEMPLATE",
      at,
    );
  const root = rootMatch[0];
  if (!(TEMPLATE_ROOTS as readonly string[]).includes(root)) {
    throw new TemplateSyntaxError(
      `Unknown reference root ${quoteTemplateText(root)} in ${quoteTemplateText(text)}; allowed roots are ${TEMPLATE_ROOTS.join(", ")}.`,
      "UNKNOWN_TEMPLATE_ROOT",
      at,
    );
  }
  const segments = parseSegments(text, root.length, at);
  return Object.freeze({
    source: text,
    root: root as TemplateRoot,
    segments: Object.freeze(segments),
  });
}

function parseSegments(text: string, start: number, offset: number): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    let segment: PathSegment;
    if (ch === ".") {
      const m = /^[A-Za-z0-9_$-]+/.exec(text.slice(i + 1));
      if (!m) throw pathError(text, i, offset, 'expected a name after "."');
      segment = m[0];
      i += 1 + m[0].length;
    } else if (ch === "[") {
      const parsed = parseBracket(text, i, offset);
      segment = parsed.segment;
      i = parsed.next;
    } else {
      const hint = ch === " " ? '; write ["key with spaces"] for keys with spaces' : "";
      throw pathError(
        text,
        i,
        offset,
        `unexpected "${ch}" (templates hold paths only: no operators, calls or filters${hint})`,
      );
    }
    if (typeof segment === "string" && FORBIDDEN_KEYS.has(segment)) {
      throw pathError(text, i, offset, `the segment ${quoteTemplateText(segment)} is not allowed`);
    }
    segments.push(segment);
    if (segments.length > MAX_PATH_SEGMENTS)
      throw pathError(text, i, offset, `more than ${MAX_PATH_SEGMENTS} segments`);
  }
  return segments;
}

function parseBracket(
  text: string,
  i: number,
  offset: number,
): { segment: PathSegment; next: number } {
  const index = /^\[(\d{1,9})\]/.exec(text.slice(i));
  if (index) return { segment: Number(index[1]), next: i + index[0].length };
  const q = text[i + 1];
  if (q !== '"' && q !== "'")
    throw pathError(text, i, offset, 'expected [number] or ["key"] after "["');
  let key = "";
  let j = i + 2;
  for (; j < text.length && text[j] !== q; j++) {
    if (text[j] === "\\") j += 1;
    key += text[j] ?? "";
  }
  if (text[j] !== q || text[j + 1] !== "]")
    throw pathError(text, i, offset, "unterminated bracket key");
  return { segment: key, next: j + 2 };
}

function pathError(text: string, at: number, offset: number, why: string): TemplateSyntaxError {
  return new TemplateSyntaxError(
    `Invalid path ${quoteTemplateText(text)} at character ${at + 1}: ${why}.`,
    "INVALID_TEMPLATE",
    offset + at,
  );
}

const referenceCache = new LRUCache<string, TemplateReference>({ max: CACHE_LIMIT });

/** Classifies a path by root and checks the root's shape (e.g. `steps.<id>.output|status`). */
export function parseReference(source: string, offset = 0): TemplateReference {
  const cached = referenceCache.get(source);
  if (cached) return cached;
  const reference = Object.freeze(parseReferenceUncached(source, offset));
  referenceCache.set(source, reference);
  return reference;
}

function parseReferenceUncached(source: string, offset: number): TemplateReference {
  const path = parsePath(source, offset);
  const [first, second] = path.segments;
  const fail = (why: string, code: TemplateErrorCode = "INVALID_TEMPLATE"): never => {
    throw new TemplateSyntaxError(
      `Invalid reference ${quoteTemplateText(path.source)}: ${why}.`,
      code,
      offset,
    );
  };
  switch (path.root) {
    case "input":
    case "vars":
      return first === undefined
        ? { root: path.root, path }
        : { root: path.root, name: String(first), path };
    case "steps": {
      if (typeof first !== "string")
        return fail("write steps.<stepId>.output or steps.<stepId>.status");
      if (second !== "output" && second !== "status")
        return fail(`write steps.${first}.output or steps.${first}.status`);
      if (second === "status" && path.segments.length > 2)
        return fail("a status is a plain string; nothing can follow .status");
      return { root: "steps", stepId: first, field: second, path };
    }
    case "lastOutput":
      return { root: "lastOutput", path };
    case "loop":
      if (!(LOOP_FIELDS as readonly unknown[]).includes(first))
        return fail(`write ${LOOP_FIELDS.map((f) => `loop.${f}`).join(", ")}`);
      if (first === "index" && path.segments.length > 1)
        return fail("loop.index is a number; nothing can follow it");
      return { root: "loop", field: first as LoopField, path };
    case "run":
      if ((first !== "id" && first !== "workflowId") || path.segments.length > 1)
        return fail("write run.id or run.workflowId");
      return { root: "run", field: first, path };
    case "trigger":
      return { root: "trigger", path };
    case "secrets": {
      if (typeof first !== "string" || path.segments.length !== 1)
        return fail("write secrets.NAME", "INVALID_SECRET_REFERENCE");
      if (!SECRET_NAME_PATTERN.test(first))
        return fail(
          `secret names are upper case letters, digits and underscores, starting with a letter (e.g. API_TOKEN), got ${quoteTemplateText(first)}`,
          "INVALID_SECRET_REFERENCE",
        );
      return { root: "secrets", name: first, path };
    }
  }
}

/** A text for a message: clipped and JSON-quoted (escapes shown). */
export function quoteTemplateText(text: string): string {
  return JSON.stringify(clip(text, 80));
}
