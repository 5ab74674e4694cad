/**
 * validateDefinition: every problem of a definition in one pass — schema and per-type config
 * errors (from zod), then graph and reference rules that zod cannot express. Graph checks run on
 * whatever parts of the input are usable, so a bad config in one step does not hide a cycle
 * elsewhere. See docs/workflow-language.md for the rules and the issue codes.
 */
import { WorkflowDefinition } from "./definition";
import {
  DefinitionValidationError,
  locate,
  makeIssue,
  where,
  type IssuePath,
  type ValidationIssue,
} from "./issues";
import { inspectInput, isPlainObject, MAX_JSON_DEPTH } from "./json";
import { fillEdgePorts, schemaIssues } from "./normalize";
import { requiredApprovalViolations, type ApprovalTarget } from "./required-approvals";
import type { StepType } from "./steps";
import { semanticIssues } from "./validate-semantics";

export {
  DefinitionValidationError,
  ISSUE_CODES,
  WARNING_CODES,
  type IssueCode,
  type ValidationIssue,
} from "./issues";

export interface ValidateOptions {
  /** Workspace policy: step types no workflow may use (added to the definition's own list). */
  readonly forbiddenStepTypes?: readonly string[];
  /** Workspace policy: a lower cap on steps than the definition's constraints.maxSteps. */
  readonly maxSteps?: number;
  /**
   * The workspace's MCP servers by name (server-side validation passes them): `tool` steps must
   * name one, and when its tool list is known (`tools` not null) a tool it has, with every
   * required argument. Omitted = not checked (the editor, pure callers).
   */
  readonly mcpServers?: McpServerCatalog;
  /**
   * The definition runs inline (unsaved, no workflow row): step types that act on their own
   * workflow (`propose_change`) are refused.
   */
  readonly inline?: boolean;
  /**
   * Workspace policy (required approvals): these kinds of steps must come after an approval on
   * every path from the start (lib/workflow/required-approvals.ts).
   */
  readonly requiredApprovals?: readonly ApprovalTarget[];
}

export type McpServerCatalog = Record<
  string,
  { tools: ReadonlyArray<{ name: string; required: readonly string[] }> | null }
>;

export interface ValidationResult {
  /** True when there is no error-severity issue (warnings allowed). */
  readonly ok: boolean;
  /** The normalized definition (defaults and edge ports filled) whenever the schema parse succeeded. */
  readonly definition?: WorkflowDefinition;
  readonly issues: ValidationIssue[];
}

/** Inputs beyond these limits are refused before parsing so hostile input cannot exhaust the stack. */
export const MAX_DEFINITION_NODES = 500_000;

export function validateDefinition(
  input: unknown,
  options: ValidateOptions = {},
): ValidationResult {
  return validateNested(input, options, 0);
}

/** Parses and validates; throws DefinitionValidationError (with every issue) on any error. */
export function parseDefinition(input: unknown, options: ValidateOptions = {}): WorkflowDefinition {
  const result = validateDefinition(input, options);
  if (!result.ok || !result.definition) throw new DefinitionValidationError(result.issues);
  return result.definition;
}

function validateNested(
  input: unknown,
  options: ValidateOptions,
  nesting: number,
): ValidationResult {
  const guard = guardInput(input);
  if ("issue" in guard) return { ok: false, issues: [guard.issue] };
  const issues: ValidationIssue[] = forbiddenKeyIssues(input, guard.protoKeyPaths);
  const parsed = WorkflowDefinition.safeParse(input);
  if (!parsed.success) issues.push(...schemaIssues(input, parsed.error.issues));
  const definition = parsed.success ? fillEdgePorts(parsed.data) : undefined;
  issues.push(
    ...semanticIssues(
      definition ?? (input as Record<string, unknown>),
      options,
      nesting,
      validateNested,
    ),
  );
  if (definition && nesting === 0 && options.requiredApprovals?.length)
    issues.push(...requiredApprovalIssues(definition, options.requiredApprovals));
  const unique = dedupe(issues);
  return {
    ok: !unique.some((i) => i.severity === "error"),
    ...(definition ? { definition } : {}),
    issues: unique,
  };
}

function requiredApprovalIssues(
  definition: WorkflowDefinition,
  targets: readonly ApprovalTarget[],
): ValidationIssue[] {
  return requiredApprovalViolations(definition, targets).map((v) =>
    makeIssue("APPROVAL_REQUIRED", v.message, [...v.path], { stepId: v.stepId }),
  );
}

function guardInput(input: unknown): { issue: ValidationIssue } | { protoKeyPaths: IssuePath[] } {
  if (!isPlainObject(input)) {
    return {
      issue: makeIssue(
        "NOT_AN_OBJECT",
        `A workflow definition must be a JSON object with schemaVersion, name and steps; got ${input === null ? "null" : Array.isArray(input) ? "an array" : typeof input}.`,
        [],
      ),
    };
  }
  const shape = inspectInput(input, MAX_JSON_DEPTH, MAX_DEFINITION_NODES);
  if (shape.depthExceeded)
    return {
      issue: makeIssue(
        "DEFINITION_TOO_LARGE",
        `The definition nests deeper than ${MAX_JSON_DEPTH} levels (or contains a cycle); flatten it.`,
        [],
      ),
    };
  if (shape.nodesExceeded)
    return {
      issue: makeIssue(
        "DEFINITION_TOO_LARGE",
        `The definition has more than ${MAX_DEFINITION_NODES} values; it is too large to be a workflow.`,
        [],
      ),
    };
  return { protoKeyPaths: shape.protoKeyPaths };
}

/** `__proto__` keys are dropped silently by JSON consumers; refusing them is clearer and safer. */
function forbiddenKeyIssues(input: unknown, paths: readonly IssuePath[]): ValidationIssue[] {
  return paths.map((path) => {
    const located = locate(input, path.slice(0, -1));
    return makeIssue(
      "FORBIDDEN_KEY",
      `${where(located)}: the key "__proto__" is not allowed anywhere in a definition.`,
      path,
      { stepId: located.stepId, edgeIndex: located.edgeIndex },
    );
  });
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.code}|${JSON.stringify(issue.path)}|${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type { StepType };
