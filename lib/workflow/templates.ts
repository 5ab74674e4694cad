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
import { clip, FORBIDDEN_KEYS, getOwn, isPlainObject } from "./json";

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
        `Unclosed "{{" at offset ${i} in ${quote(text)}; close it with "}}" or write "\\{{" for a literal "{{".`,
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
      `Invalid path ${quote(text)}: it must start with one of ${TEMPLATE_ROOTS.join(", ")}. Templates hold paths only, not code.`,
      "INVALID_TEMPLATE",
      at,
    );
  const root = rootMatch[0];
  if (!(TEMPLATE_ROOTS as readonly string[]).includes(root)) {
    throw new TemplateSyntaxError(
      `Unknown reference root ${quote(root)} in ${quote(text)}; allowed roots are ${TEMPLATE_ROOTS.join(", ")}.`,
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
      throw pathError(text, i, offset, `the segment ${quote(segment)} is not allowed`);
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
    `Invalid path ${quote(text)} at character ${at + 1}: ${why}.`,
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
    throw new TemplateSyntaxError(`Invalid reference ${quote(path.source)}: ${why}.`, code, offset);
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
          `secret names are upper case letters, digits and underscores, starting with a letter (e.g. API_TOKEN), got ${quote(first)}`,
          "INVALID_SECRET_REFERENCE",
        );
      return { root: "secrets", name: first, path };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

export interface StepContextEntry {
  /** The step's output envelope `{ type, data, meta }`; null when the step failed. */
  output?: unknown;
  status?: string;
}

/** What a template can see. Every member is optional: absent parts resolve as missing paths. */
export interface TemplateContext {
  input?: unknown;
  vars?: unknown;
  steps?: Readonly<Record<string, StepContextEntry>>;
  lastOutput?: unknown;
  loop?: LoopContext;
  run?: { id?: string; workflowId?: string };
  trigger?: unknown;
  /** Looks a secret up by name; values never live in the definition or the context object. */
  secrets?: (name: string) => string | undefined;
}

/**
 * One iteration's view of its loop. `items` is the loop's whole list, shared by reference (never
 * copied into an iteration or stored with one); `batch` is set in a loop with a batchSize (then
 * `item` is not), `state` only in a loop that declares one (it may be null).
 */
export interface LoopContext {
  item?: unknown;
  index: number;
  items?: readonly unknown[];
  batch?: readonly unknown[];
  hasState?: boolean;
  state?: unknown;
}

export interface ResolveOptions {
  /** Throw a TemplateResolutionError on a missing path instead of yielding undefined / "". */
  strict?: boolean;
  /** Escapes each value interpolated into a mixed string (e.g. shell quoting for commands). */
  escape?: (text: string) => string;
  /**
   * Keep keys whose value reaches nothing (as `undefined`) instead of dropping them. Conditions
   * need it: dropping `{ "matches": "{{ … }}" }` would silently turn a comparison into a
   * truthiness test, so the condition reports the missing operand instead.
   */
  keepMissingKeys?: boolean;
}

/**
 * Resolves templates deeply inside strings, arrays and plain objects. Other values pass through.
 *
 * The "nothing" rule (docs/workflow-language.md §6), in this one place: a lone `{{ path }}` that
 * reaches nothing — a missing optional input, a path through `null` such as the output of a step
 * that failed under `continue` — yields `undefined` at the top (callers turn it into `null` or
 * drop the field, see `resolveStepConfig`), a key whose value resolves to nothing is dropped from
 * its object, and an array element that resolves to nothing becomes `null` (as JSON.stringify
 * does). The result therefore always serializes to the same JSON it holds.
 */
export function resolveTemplate(
  value: unknown,
  ctx: TemplateContext,
  options: ResolveOptions = {},
): unknown {
  if (typeof value === "string") return resolveString(value, ctx, options);
  if (Array.isArray(value))
    return value.map((item) => {
      const resolved = resolveTemplate(item, ctx, options);
      return resolved === undefined ? null : resolved;
    });
  if (isPlainObject(value)) {
    // fromEntries defines own properties, so even a "__proto__" key could not reach a prototype.
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveTemplate(v, ctx, options);
      if (resolved !== undefined || options.keepMissingKeys) entries.push([k, resolved]);
    }
    return Object.fromEntries(entries);
  }
  return value;
}

/** Resolves one string: raw value for a lone `{{ path }}`, otherwise an interpolated string. */
export function resolveString(
  text: string,
  ctx: TemplateContext,
  options: ResolveOptions = {},
): unknown {
  if (!hasTemplate(text)) return text;
  const template = parseTemplate(text);
  if (template.isRaw) {
    const part = template.parts[0] as Extract<TemplatePart, { kind: "expression" }>;
    return lookupReference(part.reference, ctx, options.strict ?? false);
  }
  let out = "";
  for (const part of template.parts) {
    if (part.kind === "literal") {
      out += part.text;
      continue;
    }
    const text = stringifyValue(lookupReference(part.reference, ctx, options.strict ?? false));
    out += options.escape ? options.escape(text) : text;
  }
  return out;
}

/** How an interpolated value is written into a mixed string. */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value) ?? "";
}

/** Resolves a bare path (a condition `ref`) against the context. */
export function resolvePath(
  path: string,
  ctx: TemplateContext,
  options: Pick<ResolveOptions, "strict"> = {},
): unknown {
  return lookupReference(parseReference(path), ctx, options.strict ?? false);
}

export function lookupReference(
  reference: TemplateReference,
  ctx: TemplateContext,
  strict: boolean,
): unknown {
  const path = reference.path;
  if (reference.root === "secrets") return lookupSecret(reference.name, path.source, ctx);
  let current: unknown;
  let consumed: number;
  switch (reference.root) {
    case "steps":
      current = ctx.steps ? getOwn(ctx.steps, reference.stepId) : undefined;
      if (current === undefined)
        return missing(
          strict,
          path,
          `step ${quote(reference.stepId)} has no result in this run (it has not run, or it does not exist)`,
        );
      current = getOwn(current, reference.field);
      consumed = 2;
      break;
    case "loop":
      if (!ctx.loop) return missing(strict, path, "it is only available inside a loop body");
      {
        const unavailable = loopFieldUnavailable(ctx.loop, reference.field);
        if (unavailable) return missing(strict, path, unavailable);
      }
      current = ctx.loop[reference.field];
      consumed = 1;
      break;
    case "run":
      current = ctx.run ? getOwn(ctx.run, reference.field) : undefined;
      consumed = 1;
      break;
    default:
      current = ctx[reference.root];
      consumed = 0;
  }
  return walk(current, path, consumed, strict);
}

/** Why a loop field does not exist in this loop (batched loops have no item, …), or null. */
function loopFieldUnavailable(loop: LoopContext, field: LoopField): string | null {
  if (field === "item" && loop.batch !== undefined)
    return "this loop runs in batches (batchSize); use loop.batch";
  if (field === "batch" && loop.batch === undefined)
    return "loop.batch exists only in a loop with a batchSize";
  if (field === "state" && !loop.hasState)
    return 'loop.state exists only in a loop that declares a "state"';
  return null;
}

function walk(start: unknown, path: TemplatePath, from: number, strict: boolean): unknown {
  let current = start;
  for (let i = from; i < path.segments.length; i++) {
    const segment = path.segments[i]!;
    const next = step(current, segment);
    if (next === undefined) {
      const shown = [path.root, ...path.segments.slice(0, i)].map(String).join(".");
      return missing(strict, path, `${shown} ${describeMiss(current, segment)}`);
    }
    current = next;
  }
  if (current === undefined) return missing(strict, path, "it has no value");
  return current;
}

/** One path step: own properties of objects, integer indexes (and `length`) of arrays. */
function step(current: unknown, segment: PathSegment): unknown {
  if (Array.isArray(current)) {
    if (segment === "length") return current.length;
    const index =
      typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : NaN;
    return Number.isInteger(index) && index < current.length ? current[index] : undefined;
  }
  if (current === null || typeof current !== "object") return undefined;
  return getOwn(current, String(segment));
}

function describeMiss(current: unknown, segment: PathSegment): string {
  if (current === undefined || current === null)
    return `is ${current === null ? "null" : "missing"}, so [${JSON.stringify(segment)}] cannot be read`;
  if (Array.isArray(current))
    return `has no index ${JSON.stringify(segment)} (length ${current.length})`;
  if (typeof current !== "object")
    return `is a ${typeof current}, which has no ${JSON.stringify(segment)}`;
  return `has no key ${JSON.stringify(segment)}`;
}

function missing(strict: boolean, path: TemplatePath, why: string): undefined {
  if (strict)
    throw new TemplateResolutionError(
      `Cannot resolve {{ ${path.source} }}: ${why}.`,
      path.source,
      "MISSING_PATH",
    );
  return undefined;
}

function lookupSecret(name: string, source: string, ctx: TemplateContext): string {
  const value = ctx.secrets ? ctx.secrets(name) : undefined;
  if (typeof value !== "string") {
    throw new TemplateResolutionError(
      `Secret ${quote(name)} is not available to this run; add it in the workspace settings or check its name.`,
      source,
      "SECRET_UNAVAILABLE",
    );
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Static analysis
// ---------------------------------------------------------------------------------------------

export type Location = ReadonlyArray<string | number>;

export interface LocatedReference {
  readonly reference: TemplateReference;
  /** Where the template string sits inside the scanned value (JSON path). */
  readonly location: Location;
}

export interface LocatedTemplateError {
  readonly error: TemplateSyntaxError;
  readonly location: Location;
}

export interface ReferenceSummary {
  readonly references: readonly LocatedReference[];
  readonly errors: readonly LocatedTemplateError[];
  /** Distinct names, in first-seen order. */
  readonly steps: readonly string[];
  readonly inputs: readonly string[];
  readonly vars: readonly string[];
  readonly secrets: readonly string[];
  readonly usesLoop: boolean;
  readonly usesLastOutput: boolean;
  readonly usesTrigger: boolean;
}

/** Lists every reference inside a value (deeply), with syntax errors instead of throwing. */
export function collectReferences(value: unknown, basePath: Location = []): ReferenceSummary {
  const references: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  scanValue(value, basePath, references, errors);
  return summarize(references, errors);
}

/** Nesting beyond this is not scanned (validated definitions never get close). */
const SCAN_MAX_DEPTH = 128;

/**
 * Appends the references inside `value` to the given lists. One mutable path is pushed and
 * popped during the walk and copied only where a template is found, which keeps scanning a
 * 1,000-step definition cheap.
 */
export function scanValue(
  value: unknown,
  basePath: Location,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
): void {
  scanInto(value, [...basePath], references, errors, 0);
}

function scanInto(
  value: unknown,
  path: Array<string | number>,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
  depth: number,
): void {
  if (typeof value === "string") {
    if (value.includes("{{")) scanString(value, [...path], references, errors);
    return;
  }
  if (value === null || typeof value !== "object" || depth > SCAN_MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      scanInto(value[i], path, references, errors, depth + 1);
      path.pop();
    }
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    path.push(key);
    scanInto(value[key], path, references, errors, depth + 1);
    path.pop();
  }
}

export function scanString(
  text: string,
  location: Location,
  references: LocatedReference[],
  errors: LocatedTemplateError[],
): void {
  if (!hasTemplate(text)) return;
  const parsed = tryParseTemplate(text);
  if (!parsed.ok) {
    errors.push({ error: parsed.error, location });
    return;
  }
  for (const part of parsed.template.parts) {
    if (part.kind === "expression") references.push({ reference: part.reference, location });
  }
}

export function summarize(
  references: readonly LocatedReference[],
  errors: readonly LocatedTemplateError[],
): ReferenceSummary {
  const steps = new Set<string>();
  const inputs = new Set<string>();
  const vars = new Set<string>();
  const secrets = new Set<string>();
  let usesLoop = false;
  let usesLastOutput = false;
  let usesTrigger = false;
  for (const { reference } of references) {
    switch (reference.root) {
      case "steps":
        steps.add(reference.stepId);
        break;
      case "input":
        if (reference.name !== undefined) inputs.add(reference.name);
        break;
      case "vars":
        if (reference.name !== undefined) vars.add(reference.name);
        break;
      case "secrets":
        secrets.add(reference.name);
        break;
      case "loop":
        usesLoop = true;
        break;
      case "lastOutput":
        usesLastOutput = true;
        break;
      case "trigger":
        usesTrigger = true;
        break;
      case "run":
        break;
    }
  }
  return {
    references,
    errors,
    steps: [...steps],
    inputs: [...inputs],
    vars: [...vars],
    secrets: [...secrets],
    usesLoop,
    usesLastOutput,
    usesTrigger,
  };
}

/** Renders a reference back to its `{{ … }}` form for messages. */
export function showReference(reference: TemplateReference): string {
  return `{{ ${reference.path.source} }}`;
}

function quote(text: string): string {
  return JSON.stringify(clip(text, 80));
}
