/**
 * Validation issues: stable codes, the issue shape, and the translation of zod issues into
 * issues that name the step or edge, say what is wrong and what is allowed.
 */
import { clip, getAtPath, isPlainObject, quote } from "./json";
import { isStepType } from "./steps";

export const ISSUE_CODES = [
  // shape
  "NOT_AN_OBJECT",
  "DEFINITION_TOO_LARGE",
  "UNSUPPORTED_SCHEMA_VERSION",
  "UNKNOWN_KEY",
  "FORBIDDEN_KEY",
  "MISSING_FIELD",
  "INVALID_TYPE",
  "INVALID_VALUE",
  "INVALID_STEP_ID",
  "UNKNOWN_STEP_TYPE",
  "INVALID_STEP_CONFIG",
  "INVALID_CONDITION",
  "INVALID_REGEX",
  "INVALID_DURATION",
  // graph
  "NO_STEPS",
  "DUPLICATE_STEP_ID",
  "UNKNOWN_EDGE_SOURCE",
  "UNKNOWN_EDGE_TARGET",
  "UNKNOWN_PORT",
  "DUPLICATE_EDGE",
  "CYCLE",
  "UNREACHABLE_STEP",
  "ISOLATED_STEP",
  "RETURN_HAS_OUTGOING_EDGES",
  "ON_FAILURE_IGNORED",
  // references
  "INVALID_TEMPLATE",
  "UNKNOWN_TEMPLATE_ROOT",
  "UNKNOWN_STEP_REFERENCE",
  "UNKNOWN_INPUT_REFERENCE",
  "UNKNOWN_VARIABLE_REFERENCE",
  "REFERENCE_NOT_UPSTREAM",
  "REFERENCE_INTO_LOOP_BODY",
  "LOOP_REFERENCE_OUTSIDE_LOOP",
  "LOOP_VARIABLE_UNAVAILABLE",
  "INVALID_SECRET_REFERENCE",
  "SECRET_NOT_ALLOWED",
  // workspace context (only when the caller passes it)
  "UNKNOWN_MCP_SERVER",
  "UNKNOWN_MCP_TOOL",
  "MISSING_TOOL_ARGUMENT",
  // policy and advice
  "FORBIDDEN_STEP_TYPE",
  /** Workspace policy (required approvals): a covered step is reachable without an approval. */
  "APPROVAL_REQUIRED",
  "NEEDS_SAVED_WORKFLOW",
  "TOO_MANY_STEPS",
  "SELF_MODIFICATION_DISABLED",
  "INVALID_PROPOSED_DEFINITION",
  "PRIVATE_ADDRESS",
  "IGNORED_FIELD",
  "TEMPLATE_IN_COMMAND",
  "WAIT_EXCEEDS_DEADLINE",
  "MAY_READ_SKIPPED_STEP",
  /** A condition compares a number with text (never true as meant; conditions do not coerce). */
  "COMPARISON_TYPE_MISMATCH",
  /** Publish-time, from workspace members: only the likely initiator could decide a gate. */
  "NO_OTHER_APPROVER",
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

/** Codes reported as warnings: they never make `ok` false. */
export const WARNING_CODES: ReadonlySet<IssueCode> = new Set([
  "ISOLATED_STEP",
  "ON_FAILURE_IGNORED",
  "PRIVATE_ADDRESS",
  "IGNORED_FIELD",
  "TEMPLATE_IN_COMMAND",
  "WAIT_EXCEEDS_DEADLINE",
  "MAY_READ_SKIPPED_STEP",
  "COMPARISON_TYPE_MISMATCH",
  "NO_OTHER_APPROVER",
]);

export type IssuePath = Array<string | number>;

export interface ValidationIssue {
  readonly code: IssueCode;
  readonly message: string;
  /** JSON path into the definition, e.g. ["steps", 2, "config", "url"]. */
  readonly path: IssuePath;
  readonly stepId?: string;
  readonly edgeIndex?: number;
  readonly severity: "error" | "warning";
}

export function makeIssue(
  code: IssueCode,
  message: string,
  path: IssuePath,
  extra: { stepId?: string | undefined; edgeIndex?: number | undefined } = {},
): ValidationIssue {
  return {
    code,
    message,
    path,
    ...(extra.stepId !== undefined ? { stepId: extra.stepId } : {}),
    ...(extra.edgeIndex !== undefined ? { edgeIndex: extra.edgeIndex } : {}),
    severity: WARNING_CODES.has(code) ? "warning" : "error",
  };
}

export class DefinitionValidationError extends Error {
  override readonly name = "DefinitionValidationError";
  constructor(readonly issues: readonly ValidationIssue[]) {
    const errors = issues.filter((i) => i.severity === "error");
    super(
      errors.length === 1
        ? errors[0]!.message
        : `The workflow definition has ${errors.length} errors; first: ${errors[0]?.message ?? "unknown"}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Where an issue is: "Step "deploy" (http): config.url" / "Edge #2 (lint → deploy)" / "constraints"
// ---------------------------------------------------------------------------------------------

export interface Located {
  /** Message prefix naming the culprit, e.g. `Step "deploy" (http)`. */
  readonly subject: string;
  /** The field inside it, e.g. `config.url` (empty for the subject itself). */
  readonly field: string;
  readonly stepId?: string;
  readonly edgeIndex?: number;
}

/** Finds the innermost step or edge a path points into and names it from the raw input. */
export function locate(raw: unknown, path: IssuePath): Located {
  let stepAt = -1;
  let edgeAt = -1;
  for (let i = 0; i + 1 < path.length; i++) {
    if (typeof path[i + 1] !== "number") continue;
    if (path[i] === "steps") stepAt = i;
    if (path[i] === "edges") edgeAt = i;
  }
  if (edgeAt > stepAt) {
    const edge = getAtPath(raw, path.slice(0, edgeAt + 2));
    const index = path[edgeAt + 1] as number;
    const ends = isPlainObject(edge) ? ` (${showId(edge.from)} → ${showId(edge.to)})` : "";
    const inside = edgeAt > 0 ? ` in the body of ${loopName(raw, path.slice(0, edgeAt))}` : "";
    return {
      subject: `Edge #${index}${ends}${inside}`,
      field: fieldText(path.slice(edgeAt + 2)),
      edgeIndex: index,
    };
  }
  if (stepAt >= 0) {
    const step = getAtPath(raw, path.slice(0, stepAt + 2));
    const id = isPlainObject(step) && typeof step.id === "string" ? step.id : undefined;
    const type = isPlainObject(step) && isStepType(step.type) ? ` (${step.type})` : "";
    const name =
      id !== undefined ? `Step ${quote(id)}${type}` : `Step #${path[stepAt + 1] as number}${type}`;
    return {
      subject: name,
      field: fieldText(path.slice(stepAt + 2)),
      ...(id !== undefined ? { stepId: id } : {}),
    };
  }
  return { subject: "Workflow", field: fieldText(path) };
}

function loopName(raw: unknown, bodyPath: IssuePath): string {
  // bodyPath ends with [..., "steps", i, "config", "body"]
  const step = getAtPath(raw, bodyPath.slice(0, -2));
  return isPlainObject(step) && typeof step.id === "string" ? `loop ${quote(step.id)}` : "a loop";
}

function showId(value: unknown): string {
  return typeof value === "string" ? quote(value) : "?";
}

/** `["config", "tools", 0, "url"]` → `config.tools[0].url`. */
export function fieldText(path: IssuePath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? clip(segment) : `.${clip(segment)}`;
  }
  return out;
}

/** `Step "x" (http): config.url` or just the subject. */
export function where(located: Located): string {
  return located.field ? `${located.subject}: ${located.field}` : located.subject;
}
