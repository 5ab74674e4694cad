/**
 * RFC 6902 patches against a workflow definition (proposals written as a patch, SPEC §8). The
 * operation schema is the `propose_change` step's `PatchOperation` (steps/flow.ts), tightened here so
 * a pointer can never walk into `__proto__`/`constructor`/`prototype`. Applying is delegated to
 * `rfc6902`; this module only checks shapes first and turns the library's errors into one
 * sentence naming the operation. The result is NOT validated as a definition: callers run
 * validateDefinition on it, as for any other proposed definition.
 */
// rfc6902 (pinned 5.4.0): maintained, MIT, no dependencies, typed, isomorphic, passes the
// json-patch test suite, and reports per-operation errors (TestError carries actual/expected)
// instead of throwing, which is what a readable per-operation message needs. fast-json-patch
// was the alternative; it throws string-coded errors and has had no release since 2022.
import { applyPatch, type Operation } from "rfc6902";
import { z } from "zod";
import {
  describeType,
  didYouMean,
  FORBIDDEN_KEYS,
  hasOwn,
  isPlainObject,
  jsonProblem,
  preview,
} from "./json";
import { PATCH_OPS, PatchOperation } from "./steps";

/** RFC 6901 pointer → unescaped tokens ("" is the whole document). */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Tokens → RFC 6901 pointer. */
export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function forbiddenToken(pointer: unknown): string | undefined {
  return typeof pointer === "string"
    ? parsePointer(pointer).find((token) => FORBIDDEN_KEYS.has(token))
    : undefined;
}

/** One RFC 6902 operation: the propose_change step's schema plus the prototype-key guard. */
export const JsonPatchOperation = PatchOperation.superRefine((op, ctx) => {
  for (const field of ["path", "from"] as const) {
    const token = forbiddenToken(op[field]);
    if (token !== undefined)
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `"${token}" may not appear in a pointer`,
      });
  }
});
export type JsonPatchOperation = z.infer<typeof JsonPatchOperation>;

/** A whole patch (the API contract for proposals sent as a patch). */
export const JsonPatch = z.array(JsonPatchOperation);
export type JsonPatch = z.infer<typeof JsonPatch>;

export type PatchResult =
  | { ok: true; definition: unknown }
  | {
      ok: false;
      /** `index` is the failing operation, or -1 when the patch (or base) as a whole is unusable. */
      error: { index: number; op: unknown; message: string };
    };

/**
 * Applies `patch` to a copy of `base` (never mutated). Stops at the first failing operation:
 * `operation 3 (replace /steps/7/config/url): path /steps/7 does not exist`.
 */
export function applyDefinitionPatch(base: unknown, patch: unknown): PatchResult {
  const fail = (index: number, op: unknown, message: string): PatchResult => ({
    ok: false,
    error: { index, op, message },
  });
  if (!Array.isArray(patch))
    return fail(
      -1,
      patch,
      `A patch is an array of operations such as [{ "op": "replace", "path": "/name", "value": "New name" }], got ${describeType(patch)}.`,
    );
  const ops: JsonPatchOperation[] = [];
  for (const [index, raw] of patch.entries()) {
    const problem = shapeProblem(raw);
    if (problem) return fail(index, raw, `operation ${index}${label(raw)}: ${problem}`);
    ops.push(JsonPatchOperation.parse(raw));
  }
  const baseProblem = jsonProblem(base);
  if (baseProblem !== null)
    return fail(-1, undefined, `The base definition is not JSON: ${baseProblem}.`);

  // Ops run against a holder so that root pointers ("") replace or test the whole document,
  // which rfc6902 refuses on a bare root.
  const holder: { doc: unknown } = { doc: structuredClone(base) };
  for (const [index, op] of ops.entries()) {
    const problem = pointerProblem(op, holder.doc);
    if (problem) return fail(index, patch[index], `operation ${index}${label(op)}: ${problem}`);
    const error = applyPatch(holder, [rooted(op)])[0] ?? null;
    if (error)
      return fail(index, patch[index], `operation ${index}${label(op)}: ${explain(op, error)}`);
    if (holder.doc === undefined)
      return fail(
        index,
        patch[index],
        `operation ${index}${label(op)}: the whole definition cannot be removed`,
      );
  }
  return { ok: true, definition: holder.doc };
}

function rooted(op: JsonPatchOperation): Operation {
  const prefix = (pointer: string) => `/doc${pointer}`;
  return {
    ...op,
    path: prefix(op.path),
    ...(op.from !== undefined ? { from: prefix(op.from) } : {}),
  } as Operation;
}

/** ` (replace /steps/0/name)` or ` (move /a → /b)`; empty when the op is too broken to name. */
function label(op: unknown): string {
  if (!isPlainObject(op) || typeof op.op !== "string") return "";
  const path = typeof op.path === "string" ? ` ${op.path || '""'}` : "";
  if ((op.op === "move" || op.op === "copy") && typeof op.from === "string")
    return ` (${op.op} ${op.from || '""'} →${path})`;
  return ` (${op.op}${path})`;
}

/** The first thing wrong with one operation's shape, as a sentence fragment; null when fine. */
function shapeProblem(raw: unknown): string | null {
  if (!isPlainObject(raw))
    return `expected an object such as { "op": "remove", "path": "/steps/2" }, got ${describeType(raw)}`;
  if (raw.op === undefined) return `"op" is missing; use one of ${PATCH_OPS.join(", ")}`;
  if (!(PATCH_OPS as readonly unknown[]).includes(raw.op)) {
    const hint = typeof raw.op === "string" ? didYouMean(raw.op, PATCH_OPS) : "";
    return `unknown op ${preview(raw.op)}; use one of ${PATCH_OPS.join(", ")}.${hint}`.replace(
      /\.$/,
      "",
    );
  }
  if (raw.path === undefined)
    return `"path" is missing (a JSON Pointer such as "/steps/0/config/url")`;
  const parsed = JsonPatchOperation.safeParse(raw);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    return `unknown key "${key}"; an operation has op, path, from and value.${didYouMean(key, ["op", "path", "from", "value"])}`.replace(
      /\.$/,
      "",
    );
  }
  const field = issue.path.map(String).join(".");
  const message = issue.message.replace(/\.$/, "");
  return field ? `"${field}": ${message}` : message;
}

/**
 * Pointer problems checked before the library runs: rfc6902 reports only "Value required at
 * path", and it accepts a few pointers RFC 6901 does not (`replace /steps/-`, index `01`).
 */
function pointerProblem(op: JsonPatchOperation, doc: unknown): string | null {
  if (op.from !== undefined) {
    const fromProblem = missingPrefix(doc, op.from, false);
    if (fromProblem) return fromProblem.replace(/^path/, "from");
    const from = parsePointer(op.from);
    const to = parsePointer(op.path);
    if (op.op === "move" && from.length < to.length && from.every((t, i) => t === to[i]))
      return `cannot move ${op.from} into its own child ${op.path}`;
  }
  return missingPrefix(doc, op.path, op.op === "add" || op.op === "move" || op.op === "copy");
}

/**
 * An rfc6902 error (after pointerProblem passed) as a sentence. Matched by `name`, not
 * `instanceof`: bundlers may load the library's CommonJS classes twice.
 */
function explain(op: JsonPatchOperation, error: Error): string {
  if (error.name === "TestError" && "actual" in error)
    return `expected ${preview(op.value)}, found ${preview(error.actual)}`;
  if (error.name === "MissingError") return `path ${op.path} cannot be used here`;
  return error.message;
}

/**
 * Why `pointer` cannot be used on `doc`: `path /steps/7 does not exist (/steps has 3 items)`.
 * With `adding`, the last token may name a new member, the array end ("-") or index = length.
 */
function missingPrefix(doc: unknown, pointer: string, adding: boolean): string | null {
  const tokens = parsePointer(pointer);
  let current = doc;
  for (const [i, token] of tokens.entries()) {
    const isLast = i === tokens.length - 1;
    const here = formatPointer(tokens.slice(0, i)) || "the root";
    const next = formatPointer(tokens.slice(0, i + 1));
    if (Array.isArray(current)) {
      if (token === "-") {
        if (adding && isLast) return null;
        return `path ${next}: "-" (the end of ${here}) only works as the last token of an add`;
      }
      if (!/^(0|[1-9][0-9]*)$/.test(token))
        return `path ${next}: ${here} is an array and "${token}" is not an index`;
      const index = Number(token);
      const limit = adding && isLast ? current.length + 1 : current.length;
      if (index >= limit)
        return `path ${next} does not exist (${here} has ${current.length} item${current.length === 1 ? "" : "s"})`;
      current = current[index];
    } else if (isPlainObject(current)) {
      if (!hasOwn(current, token)) return adding && isLast ? null : `path ${next} does not exist`;
      current = current[token];
    } else {
      return `path ${next} does not exist (${here} is ${describeType(current)})`;
    }
  }
  return null;
}
