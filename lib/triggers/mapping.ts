/**
 * Input mapping for triggers (SPEC §7): each run input is taken from a source in the incoming
 * request or event — `$.a.b` / `$.items[0]` (the JSON payload), `query.name`, `header.x-name`.
 * Pure and isomorphic. A source that is absent is reported, never turned into `undefined` input.
 */
import { describeType } from "@/lib/workflow/json";
import { RepositoryRef } from "@/lib/workflow/repository";
export interface MappingSources {
  /** Parsed JSON payload (webhook body or event). */
  body: unknown;
  query?: Record<string, string | string[]>;
  /** Lower-cased header names. */
  headers?: Record<string, string>;
}

export interface MappingResult {
  input: Record<string, unknown>;
  /** Inputs whose source was absent: `name ← source`. */
  missing: string[];
}

const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]/y;

/** The segments of a `$.a.b[0]` path (keys and indexes); null when it is not one. */
export function jsonPathSegments(path: string): (string | number)[] | null {
  if (!path.startsWith("$")) return null;
  const out: (string | number)[] = [];
  let pos = 1;
  while (pos < path.length) {
    SEGMENT.lastIndex = pos;
    const m = SEGMENT.exec(path);
    if (!m) return null;
    pos = SEGMENT.lastIndex;
    out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  }
  return out;
}

/** Reads a `$.a.b[0]` path; `{ found: false }` when any segment is absent. */
export function readJsonPath(path: string, root: unknown): { found: boolean; value?: unknown } {
  const segments = jsonPathSegments(path);
  if (!segments) return { found: false };
  let value: unknown = root;
  for (const seg of segments) {
    if (typeof seg === "string") {
      if (value === null || typeof value !== "object" || Array.isArray(value))
        return { found: false };
      if (!Object.prototype.hasOwnProperty.call(value, seg)) return { found: false };
      value = (value as Record<string, unknown>)[seg];
    } else {
      if (!Array.isArray(value) || seg >= value.length) return { found: false };
      value = value[seg];
    }
  }
  return { found: true, value };
}

/**
 * Writes `value` at a `$.a.b[0]` path into `root` (creating objects and arrays on the way) and
 * returns the new root, so that `readJsonPath(path, result)` finds it. Used to build samples.
 */
export function writeJsonPath(root: unknown, path: string, value: unknown): unknown {
  const segments = jsonPathSegments(path);
  if (!segments) return root;
  const put = (node: unknown, i: number): unknown => {
    if (i === segments.length) return value;
    const seg = segments[i]!;
    if (typeof seg === "string") {
      const obj =
        node !== null && typeof node === "object" && !Array.isArray(node)
          ? { ...(node as Record<string, unknown>) }
          : {};
      Object.defineProperty(obj, seg, {
        value: put(Object.prototype.hasOwnProperty.call(obj, seg) ? obj[seg] : undefined, i + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return obj;
    }
    const arr = Array.isArray(node) ? [...(node as unknown[])] : [];
    while (arr.length <= seg) arr.push(null);
    arr[seg] = put(arr[seg], i + 1);
    return arr;
  };
  return put(root, 0);
}

export function readMappingSource(
  source: string,
  sources: MappingSources,
): { found: boolean; value?: unknown } {
  if (source.startsWith("$")) return readJsonPath(source, sources.body);
  if (source.startsWith("query.")) {
    const key = source.slice("query.".length);
    const q = sources.query ?? {};
    return Object.prototype.hasOwnProperty.call(q, key)
      ? { found: true, value: q[key] }
      : { found: false };
  }
  if (source.startsWith("header.")) {
    const key = source.slice("header.".length).toLowerCase();
    const h = sources.headers ?? {};
    return Object.prototype.hasOwnProperty.call(h, key)
      ? { found: true, value: h[key] }
      : { found: false };
  }
  return { found: false };
}

/** What the mapping needs to know of the workflow's declared inputs. */
export type MappedInputSpecs = Readonly<Record<string, { required?: boolean; default?: unknown }>>;

/**
 * Static input first, mapped values over it. An absent source is fine when the run can do
 * without it: the static input gives a value, or the workflow declares the input optional or
 * with a default (left unset, so the run's input check applies the default). Without `inputs`
 * (the workflow's declaration is not known) every absent source is reported.
 */
export function applyMapping(
  mapping: Record<string, string>,
  staticInput: Record<string, unknown>,
  sources: MappingSources,
  inputs?: MappedInputSpecs,
): MappingResult {
  const input: Record<string, unknown> = { ...staticInput };
  const missing: string[] = [];
  for (const [name, source] of Object.entries(mapping)) {
    const r = readMappingSource(source, sources);
    if (r.found) input[name] = r.value;
    else if (!canDoWithout(name, staticInput, inputs)) missing.push(`${name} ← ${source}`);
  }
  return { input, missing };
}

function canDoWithout(
  name: string,
  staticInput: Record<string, unknown>,
  inputs: MappedInputSpecs | undefined,
): boolean {
  if (Object.prototype.hasOwnProperty.call(staticInput, name)) return true;
  if (!inputs || !Object.prototype.hasOwnProperty.call(inputs, name)) return false;
  const spec = inputs[name]!;
  return !spec.required || spec.default !== undefined;
}

export type MappedRef =
  { ok: true; ref: string } | { ok: false; code: "missing" | "invalid"; reason: string };

/**
 * The run's repository ref read from a delivery (`repositoryRef: "$.after"`), checked by the same
 * rule as a caller's override: a branch, tag or commit that git cannot read as an option.
 */
export function mapRepositoryRef(source: string, sources: MappingSources): MappedRef {
  const r = readMappingSource(source, sources);
  if (!r.found || r.value === null)
    return {
      ok: false,
      code: "missing",
      reason: `The repository ref is missing from the request (repository ← ${source})`,
    };
  if (typeof r.value !== "string")
    return {
      ok: false,
      code: "invalid",
      reason: `The repository ref at ${source} must be a string, got ${describeType(r.value)}`,
    };
  const parsed = RepositoryRef.safeParse(r.value);
  if (!parsed.success)
    return {
      ok: false,
      code: "invalid",
      reason: `The repository ref at ${source} is invalid: ${parsed.error.issues[0]!.message}`,
    };
  return { ok: true, ref: parsed.data };
}
