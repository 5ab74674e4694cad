/** Zod issues as definition issues: codes, paths and messages that name the culprit. */
import type { z } from "zod";
import { didYouMean, describeType, getAtPath, preview, quote } from "./json";
import { VALUE_REQUIRED_MESSAGE } from "./primitives";
import { STEP_TYPES } from "./steps";
import { type IssuePath, type ValidationIssue, makeIssue, locate, where } from "./issues";

type ZodIssue = z.core.$ZodIssue;

/** Keys a strict object at `path` accepts, found by walking the zod schema along the raw input. */
export type AllowedKeys = (path: IssuePath) => readonly string[] | undefined;

export function fromZodIssue(
  issue: ZodIssue,
  raw: unknown,
  allowedKeys: AllowedKeys,
): ValidationIssue[] {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  const located = locate(raw, path);
  const extra = { stepId: located.stepId, edgeIndex: located.edgeIndex };
  const value = getAtPath(raw, path);
  const inConfig = isConfigPath(path);

  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .filter((key) => key !== "__proto__") // reported once as FORBIDDEN_KEY
      .map((key) => {
        const allowed = allowedKeys(path);
        const hint = allowed
          ? ` Allowed keys: ${allowed.join(", ")}.${didYouMean(key, allowed)}`
          : "";
        const container =
          located.subject === "Workflow"
            ? located.field || "the workflow definition"
            : located.field
              ? `${located.subject} ${located.field}`
              : located.subject;
        return makeIssue(
          "UNKNOWN_KEY",
          `Unknown key ${quote(key)} in ${container}.${hint}`,
          [...path, key],
          extra,
        );
      });
  }

  const custom =
    issue.code === "custom" ? (issue.params as { code?: string } | undefined)?.code : undefined;
  if (
    custom === "INVALID_CONDITION" ||
    custom === "INVALID_REGEX" ||
    custom === "INVALID_DURATION"
  ) {
    return [makeIssue(custom, `${where(located)}: ${issue.message}`, path, extra)];
  }

  if (isStepTypePath(path) && issue.code === "invalid_union") {
    if (value === undefined)
      return [
        makeIssue(
          "MISSING_FIELD",
          `${located.subject}: "type" is required; use one of ${STEP_TYPES.join(", ")}.`,
          path,
          extra,
        ),
      ];
    const hint = typeof value === "string" ? didYouMean(value, STEP_TYPES) : "";
    return [
      makeIssue(
        "UNKNOWN_STEP_TYPE",
        `${located.subject}: unknown step type ${preview(value)}; use one of ${STEP_TYPES.join(", ")}.${hint}`,
        path,
        extra,
      ),
    ];
  }

  if (path.length === 1 && path[0] === "schemaVersion" && value !== undefined) {
    return [
      makeIssue(
        "UNSUPPORTED_SCHEMA_VERSION",
        `Unsupported schemaVersion ${preview(value)}; this version of Sluice reads schemaVersion 1.`,
        path,
      ),
    ];
  }
  if (path.length === 1 && path[0] === "steps" && issue.code === "too_big") {
    return [
      makeIssue(
        "TOO_MANY_STEPS",
        `The workflow has ${Array.isArray(value) ? value.length : "too many"} steps; the hard limit is ${String(issue.maximum)}.`,
        path,
      ),
    ];
  }
  if (isStepIdPath(path) && value !== undefined) {
    return [
      makeIssue(
        "INVALID_STEP_ID",
        `${located.subject}: invalid id ${preview(value)}: ${issue.message}`,
        path,
        extra,
      ),
    ];
  }

  const missing =
    value === undefined &&
    (issue.code === "invalid_type" ||
      issue.code === "invalid_union" ||
      issue.message === VALUE_REQUIRED_MESSAGE);
  const code = inConfig
    ? "INVALID_STEP_CONFIG"
    : missing
      ? "MISSING_FIELD"
      : issue.code === "invalid_type" || custom === "INVALID_TYPE"
        ? "INVALID_TYPE"
        : "INVALID_VALUE";
  const text = missing
    ? `${located.subject}: ${located.field || "a value"} is required`
    : `${where(located)}: ${describeProblem(issue, value)}`;
  return [makeIssue(code, text.endsWith(".") ? text : `${text}.`, path, extra)];
}

function describeProblem(issue: ZodIssue, value: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected === "int" ? "an integer" : issue.expected}, got ${typeof value === "number" && issue.expected === "int" ? String(value) : describeType(value)}`;
    case "too_small":
      return withLimit(issue.message, sizeMessage(issue.origin, "at least", issue.minimum, value));
    case "too_big":
      return withLimit(issue.message, sizeMessage(issue.origin, "at most", issue.maximum, value));
    case "invalid_value":
      return `must be ${issue.values.length === 1 ? preview(issue.values[0]) : `one of ${issue.values.map((v) => preview(v)).join(", ")}`}, got ${preview(value)}`;
    case "invalid_format":
      return issue.message.startsWith("Invalid")
        ? `${preview(value)} has an invalid format`
        : `${preview(value)} — ${issue.message}`;
    case "invalid_key": {
      const inner = issue.issues.map((i) => i.message).join("; ");
      const key = issue.path[issue.path.length - 1];
      return `invalid key ${preview(key)}: ${inner}`;
    }
    case "invalid_union": {
      const meant = meantBranch(issue);
      if (meant) return meant.map((e) => e.message.replace(/\.$/, "")).join("; ");
      const expected = issue.errors.flatMap((errs) =>
        errs
          .filter((e) => e.code === "invalid_type" && e.path.length === 0)
          .map((e) => (e as { expected: string }).expected),
      );
      return expected.length === issue.errors.length && expected.length > 0
        ? `expected ${expected.join(" or ")}, got ${describeType(value)}`
        : `${preview(value)} does not match any allowed form (${issue.message})`;
    }
    default:
      return issue.message.replace(/\.$/, "");
  }
}

/** A branch whose only problems are deeper than a root type mismatch is the one the author meant. */
function meantBranch(issue: z.core.$ZodIssueInvalidUnion): ZodIssue[] | undefined {
  const meant = issue.errors.filter(
    (errs) => !errs.some((e) => e.code === "invalid_type" && e.path.length === 0),
  );
  return meant.length === 1 && meant[0]!.length ? meant[0] : undefined;
}

/**
 * A size limit's message names the limit: zod's default ("Too big: …") gives way to ours; a
 * schema's own message is kept, with the limit added when it does not already state it
 * ("Name is too long" → "Name is too long: must be at most 200 characters (got 250)").
 */
function withLimit(schemaMessage: string, limitMessage: string): string {
  if (/^Too (big|small)\b/.test(schemaMessage)) return limitMessage;
  const own = schemaMessage.replace(/\.$/, "");
  const limit = /\d+/.exec(limitMessage)?.[0];
  if (limit && new RegExp(`\\b${limit}\\b`).test(own)) {
    const got = /\((got [^)]*)\)$/.exec(limitMessage)?.[1];
    return got ? `${own} (${got})` : own;
  }
  return `${own}: ${limitMessage}`;
}

/**
 * One zod issue as a sentence fragment and the path of the field it is about, for transports
 * (tRPC inputs, API bodies). `raw` is the parsed input when the caller has it: then the message
 * can say what was sent. A union is reported through the branch the caller meant, so "Invalid
 * input" becomes e.g. "must have at most 100 items (got 101)".
 */
export function describeZodIssue(
  issue: ZodIssue,
  raw?: { value: unknown },
): { path: IssuePath; message: string } {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  if (issue.code === "invalid_union") {
    const first = meantBranch(issue)?.[0];
    if (first) return describeZodIssue({ ...first, path: [...path, ...first.path] }, raw);
  }
  if (issue.code === "unrecognized_keys")
    return {
      path,
      message: `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => quote(k)).join(", ")}`,
    };
  const value = raw ? getAtPath(raw.value, path) : undefined;
  if (raw || issue.code === "too_big" || issue.code === "too_small")
    return { path, message: describeProblem(issue, value) };
  // Without the input, "got …" cannot be said: zod's own words, minus its generic prefix.
  return { path, message: issue.message.replace(/^Invalid input: /, "").replace(/\.$/, "") };
}

function sizeMessage(
  origin: string,
  bound: string,
  limit: number | bigint,
  value: unknown,
): string {
  switch (origin) {
    case "string":
      return `must be ${bound} ${limit} character${limit === 1 ? "" : "s"}${typeof value === "string" ? ` (got ${value.length})` : ""}`;
    case "array":
      return `must have ${bound} ${limit} item${limit === 1 ? "" : "s"}${Array.isArray(value) ? ` (got ${value.length})` : ""}`;
    default:
      return `must be ${bound} ${limit}${value === undefined ? "" : `, got ${preview(value)}`}`;
  }
}

/** Path points at `steps[i].config…` (possibly inside loop bodies). */
function isConfigPath(path: IssuePath): boolean {
  for (let i = path.length - 3; i >= 0; i--) {
    if (path[i] === "steps" && typeof path[i + 1] === "number") return path[i + 2] === "config";
  }
  return false;
}

function isStepTypePath(path: IssuePath): boolean {
  const n = path.length;
  return (
    n >= 3 && path[n - 1] === "type" && typeof path[n - 2] === "number" && path[n - 3] === "steps"
  );
}

function isStepIdPath(path: IssuePath): boolean {
  const n = path.length;
  return (
    n >= 3 && path[n - 1] === "id" && typeof path[n - 2] === "number" && path[n - 3] === "steps"
  );
}
