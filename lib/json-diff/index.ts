import microdiff from "microdiff";
import { clip } from "../workflow/json";

/**
 * A typed, size-capped structural diff of two JSON values, shared by run diff and proposal replay.
 * microdiff does the comparison (index-wise for arrays, no LCS: a shifted array shows as changes
 * from the shift on, which is what a step's output diff should say). This wrapper adds what a
 * transport needs: primitives at the root, caps on the number of changes and on quoted values, so
 * a 2 MB output never ships back whole.
 */

export type JsonDiffPath = (string | number)[];

export type JsonDiffKind = "added" | "removed" | "changed";

export interface JsonDiffChange {
  readonly kind: JsonDiffKind;
  /** Keys and indexes from the root; [] when the root itself changed. */
  readonly path: JsonDiffPath;
  /** `path` for people: `$.items[2].name`. */
  readonly where: string;
  /** The value in A (absent for "added"), clipped past `maxValueChars` to a preview string. */
  readonly before?: unknown;
  /** The value in B (absent for "removed"), clipped likewise. */
  readonly after?: unknown;
  /** True when before or after was replaced by a clipped preview. */
  readonly clipped: boolean;
}

export interface JsonDiff {
  readonly equal: boolean;
  /** At most `maxChanges` changes, in document order of A then the additions of B. */
  readonly changes: JsonDiffChange[];
  /** How many changes there are in all; more than `changes.length` when capped. */
  readonly totalChanges: number;
  readonly truncated: boolean;
}

export interface JsonDiffOptions {
  /** Most changes returned (default 200). */
  readonly maxChanges?: number;
  /** Longest JSON text a before/after value is quoted with (default 2,000 characters). */
  readonly maxValueChars?: number;
}

export const DEFAULT_MAX_CHANGES = 200;
export const DEFAULT_MAX_VALUE_CHARS = 2_000;

/** `$.a.b[3]["odd key"]`: how a change's place is shown. */
export function formatJsonPath(path: ReadonlyArray<string | number>): string {
  let out = "$";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return value !== null && typeof value === "object";
}

/** `value` itself, or a clipped JSON preview when its text is longer than `max`. */
function capValue(value: unknown, max: number): { value: unknown; clipped: boolean } {
  if (!isContainer(value) && typeof value !== "string") return { value, clipped: false };
  if (typeof value === "string")
    return value.length > max
      ? { value: clip(value, max), clipped: true }
      : { value, clipped: false };
  let text: string;
  try {
    text = JSON.stringify(value) ?? "";
  } catch {
    return { value: "[unserialisable value]", clipped: true };
  }
  return text.length > max ? { value: clip(text, max), clipped: true } : { value, clipped: false };
}

/** Structural difference from `a` to `b` (JSON values: undefined counts as absent). */
export function diffJson(a: unknown, b: unknown, options: JsonDiffOptions = {}): JsonDiff {
  const maxChanges = options.maxChanges ?? DEFAULT_MAX_CHANGES;
  const maxValueChars = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  // microdiff compares containers only; a one-key wrapper lets primitives and mixed roots through.
  const raw = microdiff({ v: a }, { v: b }, { cyclesFix: false });
  const changes: JsonDiffChange[] = [];
  for (const d of raw) {
    if (changes.length >= maxChanges) break;
    const path = d.path.slice(1);
    let before: { value: unknown; clipped: boolean } | undefined;
    let after: { value: unknown; clipped: boolean } | undefined;
    let kind: JsonDiffKind;
    if (d.type === "CREATE") {
      kind = "added";
      after = capValue(d.value, maxValueChars);
    } else if (d.type === "REMOVE") {
      kind = "removed";
      before = capValue(d.oldValue, maxValueChars);
    } else {
      kind = "changed";
      before = capValue(d.oldValue, maxValueChars);
      after = capValue(d.value, maxValueChars);
    }
    // A root present on one side only (undefined vs a value) reads as added/removed.
    if (d.type === "CHANGE" && d.oldValue === undefined) kind = "added";
    else if (d.type === "CHANGE" && d.value === undefined) kind = "removed";
    changes.push({
      kind,
      path,
      where: formatJsonPath(path),
      ...(before && kind !== "added" ? { before: before.value } : {}),
      ...(after && kind !== "removed" ? { after: after.value } : {}),
      clipped: Boolean(before?.clipped || after?.clipped),
    });
  }
  return {
    equal: raw.length === 0,
    changes,
    totalChanges: raw.length,
    truncated: raw.length > changes.length,
  };
}
