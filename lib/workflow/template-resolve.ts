/**
 * Resolving `{{ path }}` templates against a run's context (the rules are in templates.ts and
 * docs/workflow-language.md): raw values for a lone template, interpolation otherwise, secrets
 * through the caller's resolver.
 */
import { getOwn, isPlainObject } from "./json";
import {
  hasTemplate,
  parseReference,
  parseTemplate,
  quoteTemplateText,
  TemplateResolutionError,
  type LoopField,
  type PathSegment,
  type TemplatePart,
  type TemplatePath,
  type TemplateReference,
} from "./templates";

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
          `step ${quoteTemplateText(reference.stepId)} has no result in this run (it has not run, or it does not exist)`,
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
      `Secret ${quoteTemplateText(name)} is not available to this run; add it in the workspace settings or check its name.`,
      source,
      "SECRET_UNAVAILABLE",
    );
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Static analysis
