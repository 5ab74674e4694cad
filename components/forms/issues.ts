/**
 * The one issue → field adapter. Every source of "this field is wrong" speaks the same shape —
 * `{ path, message }`: zod issues from a client-side parse, the issues a tRPC error carries
 * (the server's ValidationError, see the error formatter) and the workflow validator's issues —
 * so forms, the trigger dialogs, the settings pages and the inspector map them with one function
 * instead of one hand-written loop each. Pure, so it is unit-tested without a DOM.
 */

/** A path segment as zod 4 (PropertyKey) or Standard Schema (`{ key }`) writes it. */
export type IssuePathSegment = PropertyKey | { readonly key: PropertyKey };

export interface IssueLike {
  readonly path?: readonly IssuePathSegment[] | undefined;
  readonly message: string;
}

export type FieldPath = readonly (string | number)[];

/** Key of an issue that names no field (or whose field the form does not render). */
export const FORM_KEY = "_form";

export interface MapIssuesOptions {
  /**
   * Where the form's fields live in the issue paths. An issue belongs to the form when its path
   * starts with one of these prefixes (the first that matches wins) and is made relative to it;
   * issues under none of them are left out. Default `[[]]`: every issue, paths as they are.
   * E.g. `[["config"], []]` maps the server's `config.cron` and a client parse's `cron` alike.
   */
  readonly within?: readonly FieldPath[];
  /**
   * The field keys the form renders. An issue deeper than a field folds onto it
   * (`mapping.orderId` → `mapping`); one matching no field is `unplaced` (shown in a summary).
   * Omitted: every relative path is its own key.
   */
  readonly fields?: Iterable<string>;
  /**
   * Issue path → field key, for fields whose name differs from the path of the value they
   * produce (`maxBodyBytes` is edited as `maxBodyKb`). Applied to the relative path's prefixes.
   */
  readonly alias?: Readonly<Record<string, string>>;
  /** Rewrites a message for display next to its field (e.g. drop a "Step "x": config.url:" prefix). */
  readonly message?: (issue: IssueLike, relativePath: FieldPath) => string;
}

export interface FieldIssues {
  /** Field key (dotted path, react-hook-form style) → its first message. */
  readonly byField: Record<string, string>;
  /** Issues that name no rendered field, in order, with the key they would have had. */
  readonly unplaced: readonly { readonly key: string; readonly message: string }[];
}

export function segmentOf(segment: IssuePathSegment): string | number {
  const key = typeof segment === "object" && segment !== null ? segment.key : segment;
  return typeof key === "number" ? key : String(key);
}

/** `["verification", "header"]` → `"verification.header"`; the empty path is FORM_KEY. */
export function fieldKey(path: FieldPath): string {
  return path.length === 0 ? FORM_KEY : path.join(".");
}

function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => String(path[i]) === String(p));
}

/** The path relative to the first matching `within` prefix, or undefined when outside the form. */
export function relativePath(
  path: FieldPath,
  within: readonly FieldPath[] = [[]],
): FieldPath | undefined {
  const prefix = within.find((p) => startsWith(path, p));
  return prefix === undefined ? undefined : path.slice(prefix.length);
}

/** The longest rendered field that is `path` or one of its ancestors. */
function foldOnto(path: FieldPath, fields: ReadonlySet<string>): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const key = path.slice(0, n).join(".");
    if (fields.has(key)) return key;
  }
  return fields.has(FORM_KEY) && path.length === 0 ? FORM_KEY : undefined;
}

function aliased(path: FieldPath, alias: Readonly<Record<string, string>>): FieldPath {
  for (let n = path.length; n > 0; n--) {
    const target = alias[path.slice(0, n).join(".")];
    if (target !== undefined) return [...target.split("."), ...path.slice(n)];
  }
  return path;
}

/** Issues → first message per field, plus the ones no field shows. */
export function mapIssues(
  issues: readonly IssueLike[] | null | undefined,
  options: MapIssuesOptions = {},
): FieldIssues {
  const fields = options.fields ? new Set(options.fields) : undefined;
  const byField: Record<string, string> = {};
  const unplaced: { key: string; message: string }[] = [];
  for (const issue of issues ?? []) {
    const found = relativePath((issue.path ?? []).map(segmentOf), options.within);
    if (found === undefined) continue;
    const rel = options.alias ? aliased(found, options.alias) : found;
    const message = options.message ? options.message(issue, rel) : issue.message;
    const key = fields ? foldOnto(rel, fields) : fieldKey(rel);
    if (key === undefined) unplaced.push({ key: fieldKey(rel), message });
    else byField[key] ??= message;
  }
  return { byField, unplaced };
}

/** The issues a tRPC error carries (`error.data.issues`, see the error formatter), or none. */
export function issuesOf(error: unknown): IssueLike[] {
  const data = (error as { data?: { issues?: unknown } } | null)?.data;
  return Array.isArray(data?.issues) ? (data.issues as IssueLike[]) : [];
}
