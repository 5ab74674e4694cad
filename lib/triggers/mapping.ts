/**
 * Input mapping for triggers (SPEC §7): each run input is taken from a source in the incoming
 * request or event — `$.a.b` / `$.items[0]` (the JSON payload), `query.name`, `header.x-name`.
 * Pure and isomorphic. A source that is absent is reported, never turned into `undefined` input.
 */
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

/** Reads a `$.a.b[0]` path; `{ found: false }` when any segment is absent. */
export function readJsonPath(path: string, root: unknown): { found: boolean; value?: unknown } {
  if (!path.startsWith("$")) return { found: false };
  let value: unknown = root;
  SEGMENT.lastIndex = 1;
  let pos = 1;
  while (pos < path.length) {
    SEGMENT.lastIndex = pos;
    const m = SEGMENT.exec(path);
    if (!m) return { found: false };
    pos = SEGMENT.lastIndex;
    if (m[1] !== undefined) {
      if (value === null || typeof value !== "object" || Array.isArray(value))
        return { found: false };
      if (!Object.prototype.hasOwnProperty.call(value, m[1])) return { found: false };
      value = (value as Record<string, unknown>)[m[1]];
    } else {
      const i = Number(m[2]);
      if (!Array.isArray(value) || i >= value.length) return { found: false };
      value = value[i];
    }
  }
  return { found: true, value };
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

/** Static input first, mapped values over it. */
export function applyMapping(
  mapping: Record<string, string>,
  staticInput: Record<string, unknown>,
  sources: MappingSources,
): MappingResult {
  const input: Record<string, unknown> = { ...staticInput };
  const missing: string[] = [];
  for (const [name, source] of Object.entries(mapping)) {
    const r = readMappingSource(source, sources);
    if (r.found) input[name] = r.value;
    else missing.push(`${name} ← ${source}`);
  }
  return { input, missing };
}
