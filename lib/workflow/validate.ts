/**
 * validateDefinition: every problem of a definition in one pass — schema and per-type config
 * errors (from zod), then graph and reference rules that zod cannot express. Graph checks run on
 * whatever parts of the input are usable, so a bad config in one step does not hide a cycle
 * elsewhere. See docs/workflow-language.md for the rules and the issue codes.
 */
import { defaultPortOf, ERROR_PORT, portsOf, STEP_CATALOG } from "./catalog";
import { MAX_STEPS_HARD_CAP, DEFAULT_MAX_STEPS, WorkflowDefinition } from "./definition";
import {
  computeAncestry,
  findCycles,
  buildGraph,
  unreachableSteps,
  type Ancestry,
  type WorkflowGraph,
  type GraphEdgeLike,
} from "./graph";
import {
  DefinitionValidationError,
  fieldText,
  locate,
  makeIssue,
  where,
  type IssueCode,
  type IssuePath,
  type ValidationIssue,
} from "./issues";
import { didYouMean, inspectInput, isPlainObject, MAX_JSON_DEPTH, quote } from "./json";
import { StepId } from "./primitives";
import { fillEdgePorts, schemaIssues } from "./normalize";
import { isStepType, type StepType } from "./steps";
import { stepReferences } from "./refs";
import { requiredApprovalViolations, type ApprovalTarget } from "./required-approvals";
import {
  scanValue,
  type LocatedReference,
  type LocatedTemplateError,
  type TemplateReference,
} from "./templates";
import { comparisonProblems, typeScopeOf, type TypeScope } from "./comparison-types";
import { classifyIp, parseIp } from "../net/ip";
import { formatDuration, tryParseDuration } from "./duration";

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

/**
 * Step types an inline run cannot execute: a proposal targets the workflow it runs in. Approval
 * and task steps run inline (their rows carry a null workflow).
 */
export const SAVED_WORKFLOW_STEP_TYPES: readonly string[] = ["propose_change"];

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
    ...semanticIssues(definition ?? (input as Record<string, unknown>), options, nesting),
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

// ---------------------------------------------------------------------------------------------
// Semantic checks
// ---------------------------------------------------------------------------------------------

interface StepView {
  readonly id: string;
  readonly type: string;
  readonly raw: Record<string, unknown>;
  readonly path: IssuePath;
  readonly when?: unknown;
}

interface Level {
  readonly path: IssuePath;
  readonly rawSteps: readonly unknown[];
  readonly rawEdges: unknown;
  readonly views: StepView[];
  readonly ids: Set<string>;
  readonly parent?: { readonly level: Level; readonly loopId: string };
  graph?: WorkflowGraph<StepView>;
  ancestry?: Ancestry;
  /** Steps with a place in the topological order (not on or behind a cycle). */
  ordered?: ReadonlySet<string>;
  /** The decisions each step needs in order to run (computed on first use, see gatesIn). */
  gates?: ReadonlyMap<string, ReadonlySet<string>>;
}

interface Checker {
  readonly root: Record<string, unknown>;
  readonly options: ValidateOptions;
  readonly nesting: number;
  readonly issues: ValidationIssue[];
  /** Every step id in the definition → the loop whose body holds it (null at the top level). */
  readonly owners: Map<string, string | null>;
  readonly inputs: ReadonlySet<string>;
  readonly vars: ReadonlySet<string>;
  /** The top-level graph, once gathered (workflow `output` reads its steps). */
  topLevel?: Level;
  /** What references are known to hold (computed on first use, see checkComparisons). */
  typeScope?: TypeScope;
  readonly constraints: {
    allowSelfModification: boolean;
    maxSteps: number;
    forbidden: ReadonlySet<string>;
    /** The run deadline (constraints.timeoutMs, default 1 h). */
    timeoutMs: number;
  };
}

function semanticIssues(
  root: Record<string, unknown>,
  options: ValidateOptions,
  nesting: number,
): ValidationIssue[] {
  const checker: Checker = {
    root,
    options,
    nesting,
    issues: [],
    owners: new Map(),
    inputs: new Set(isPlainObject(root.inputs) ? Object.keys(root.inputs) : []),
    vars: new Set(isPlainObject(root.variables) ? Object.keys(root.variables) : []),
    constraints: readConstraints(root.constraints),
  };
  if (!Array.isArray(root.steps)) return checker.issues;
  if (root.steps.length === 0)
    checker.issues.push(
      makeIssue("NO_STEPS", "The workflow has no steps; add at least one.", ["steps"]),
    );
  const levels = gatherLevels(checker, root.steps, root.edges, [], undefined);
  checker.topLevel = levels[0];
  for (const level of levels) checkLevel(checker, level);
  checkStepCount(checker, levels);
  checkOutput(checker);
  return checker.issues;
}

function readConstraints(raw: unknown): Checker["constraints"] {
  const c = isPlainObject(raw) ? raw : {};
  return {
    allowSelfModification: c.allowSelfModification === true,
    maxSteps:
      typeof c.maxSteps === "number" && Number.isInteger(c.maxSteps) && c.maxSteps > 0
        ? Math.min(c.maxSteps, MAX_STEPS_HARD_CAP)
        : DEFAULT_MAX_STEPS,
    forbidden: new Set(
      Array.isArray(c.forbiddenStepTypes)
        ? c.forbiddenStepTypes.filter((t): t is string => typeof t === "string")
        : [],
    ),
    timeoutMs:
      typeof c.timeoutMs === "number" && Number.isFinite(c.timeoutMs) && c.timeoutMs > 0
        ? c.timeoutMs
        : DEFAULT_RUN_TIMEOUT_MS,
  };
}

const DEFAULT_RUN_TIMEOUT_MS = 3_600_000;

/** Collects every level (top, then loop bodies depth-first) and reports duplicate ids globally. */
function gatherLevels(
  checker: Checker,
  rawSteps: readonly unknown[],
  rawEdges: unknown,
  path: IssuePath,
  parent: Level["parent"],
): Level[] {
  const level: Level = {
    path,
    rawSteps,
    rawEdges,
    views: [],
    ids: new Set(),
    ...(parent ? { parent } : {}),
  };
  const levels: Level[] = [level];
  const nested: Array<() => Level[]> = [];
  rawSteps.forEach((raw, index) => {
    if (!isPlainObject(raw) || typeof raw.id !== "string" || typeof raw.type !== "string") return;
    const view: StepView = {
      id: raw.id,
      type: raw.type,
      raw,
      path: [...path, "steps", index],
      when: raw.when,
    };
    if (!isStepType(raw.type) && !StepId.safeParse(raw.id).success) {
      // zod stops at the unknown type, so the id would otherwise go unreported.
      checker.issues.push(
        makeIssue(
          "INVALID_STEP_ID",
          `Step ${quote(raw.id)}: invalid id; step ids start with a lower-case letter and contain only a-z, 0-9 and _ (max 64).`,
          [...view.path, "id"],
          { stepId: raw.id },
        ),
      );
    }
    if (checker.owners.has(view.id)) {
      const owner = checker.owners.get(view.id);
      const first = owner ? `in the body of loop ${quote(owner)}` : "at the top level";
      checker.issues.push(
        makeIssue(
          "DUPLICATE_STEP_ID",
          `Step id ${quote(view.id)} is used more than once (first ${first}); step ids must be unique across the whole workflow, loop bodies included.`,
          [...view.path, "id"],
          { stepId: view.id },
        ),
      );
      return;
    }
    checker.owners.set(view.id, parent ? parent.loopId : null);
    level.views.push(view);
    level.ids.add(view.id);
    const body = raw.type === "loop" && isPlainObject(raw.config) ? raw.config.body : undefined;
    if (isPlainObject(body) && Array.isArray(body.steps)) {
      const bodySteps = body.steps;
      nested.push(() =>
        gatherLevels(checker, bodySteps, body.edges, [...view.path, "config", "body"], {
          level,
          loopId: view.id,
        }),
      );
    }
  });
  for (const gather of nested) levels.push(...gather());
  return levels;
}

function checkLevel(checker: Checker, level: Level): void {
  const edges = Array.isArray(level.rawEdges) ? level.rawEdges : undefined;
  const usableEdges = edges?.filter(
    (e): e is GraphEdgeLike =>
      isPlainObject(e) && typeof e.from === "string" && typeof e.to === "string",
  );
  const graph = buildGraph<StepView>({ steps: level.views, edges: usableEdges });
  level.graph = graph;
  level.ancestry = computeAncestry(graph);
  level.ordered = new Set(graph.order);
  if (edges) checkEdges(checker, level, edges);
  else checkChainReturn(checker, level);
  const onCycle = checkCycles(checker, level, graph);
  checkReachability(checker, level, graph, onCycle, edges !== undefined);
  for (const view of level.views) {
    checkStepPolicy(checker, view);
    checkStepReferences(checker, level, view);
    checkComparisons(checker, view);
  }
}

/** Conditions comparing a number with text: a warning, so existing definitions still load. */
function checkComparisons(checker: Checker, view: StepView): void {
  const conditions: Array<[IssuePath, unknown]> = [];
  if (view.when !== undefined) conditions.push([["when"], view.when]);
  const config = view.raw.config;
  if (view.type === "condition" && isPlainObject(config))
    conditions.push([["config", "condition"], config.condition]);
  if (conditions.length === 0) return;
  checker.typeScope ??= typeScopeOf(checker.root);
  for (const [base, condition] of conditions) {
    for (const problem of comparisonProblems(condition, checker.typeScope)) {
      const location = [...base, ...problem.location];
      checker.issues.push(
        makeIssue(
          "COMPARISON_TYPE_MISMATCH",
          `Step ${quote(view.id)} (${view.type}): ${fieldText(location)} ${problem.message}`,
          [...view.path, ...location],
          { stepId: view.id },
        ),
      );
    }
  }
}

// --- edges -----------------------------------------------------------------------------------

function checkEdges(checker: Checker, level: Level, edges: readonly unknown[]): void {
  const byId = new Map(level.views.map((v) => [v.id, v]));
  const seen = new Map<string, number>();
  edges.forEach((edge, index) => {
    if (!isPlainObject(edge) || typeof edge.from !== "string" || typeof edge.to !== "string")
      return; // schema issue already
    const at = () => edgePath(level, index);
    const label = () => edgeLabel(level, index, edge.from as string, edge.to as string);
    const source = byId.get(edge.from);
    const target = byId.get(edge.to);
    if (!source)
      checker.issues.push(
        makeIssue(
          "UNKNOWN_EDGE_SOURCE",
          `${label()}: source step ${quote(edge.from)} ${missingStepHint(checker, level, edge.from)}`,
          [...at(), "from"],
          { edgeIndex: index },
        ),
      );
    if (!target)
      checker.issues.push(
        makeIssue(
          "UNKNOWN_EDGE_TARGET",
          `${label()}: target step ${quote(edge.to)} ${missingStepHint(checker, level, edge.to)}`,
          [...at(), "to"],
          { edgeIndex: index },
        ),
      );
    if (source?.type === "return") {
      checker.issues.push(
        makeIssue(
          "RETURN_HAS_OUTGOING_EDGES",
          `Step ${quote(source.id)} (return) ends the run, so ${label().charAt(0).toLowerCase()}${label().slice(1)} can never be taken; remove the edge.`,
          at(),
          { stepId: source.id, edgeIndex: index },
        ),
      );
    } else if (
      source &&
      isStepType(source.type) &&
      typeof edge.port === "string" &&
      !portsOf(source.type).includes(edge.port)
    ) {
      checker.issues.push(
        makeIssue(
          "UNKNOWN_PORT",
          `Step ${quote(edge.to)}: edge from ${quote(edge.from)} uses port ${quote(edge.port)}, but ${article(source.type)} ${source.type} step only has ports ${portsOf(source.type).join(", ")}.`,
          [...at(), "port"],
          { stepId: edge.to, edgeIndex: index },
        ),
      );
    }
    if (edge.port === "error" && (edge.onFailure === "continue" || edge.onFailure === "fail_run")) {
      checker.issues.push(
        makeIssue(
          "ON_FAILURE_IGNORED",
          `${label()}: onFailure ${quote(edge.onFailure)} has no effect on an edge from the error port (it runs exactly when ${quote(edge.from)} fails); remove it.`,
          [...at(), "onFailure"],
          { edgeIndex: index },
        ),
      );
    }
    const port = typeof edge.port === "string" ? edge.port : defaultPortOf(source?.type ?? "");
    const key = `${edge.from}\u0000${port}\u0000${edge.to}`;
    const first = seen.get(key);
    if (first !== undefined) {
      checker.issues.push(
        makeIssue(
          "DUPLICATE_EDGE",
          `${label()}: duplicates edge #${first} (same source, port ${quote(port)} and target); remove one.`,
          at(),
          { edgeIndex: index },
        ),
      );
    } else seen.set(key, index);
  });
}

// Paths and labels are built only when an issue is reported: for every valid edge it was measurable.
function edgePath(level: Level, index: number): IssuePath {
  return [...level.path, "edges", index];
}

function edgeLabel(level: Level, index: number, from: string, to: string): string {
  return `Edge #${index} (${quote(from)} → ${quote(to)})${level.parent ? ` in the body of loop ${quote(level.parent.loopId)}` : ""}`;
}

function missingStepHint(checker: Checker, level: Level, id: string): string {
  const owner = checker.owners.get(id);
  if (owner !== undefined) {
    const where = owner === null ? "at the top level" : `in the body of loop ${quote(owner)}`;
    return `is ${where}, not ${level.parent ? `in the body of loop ${quote(level.parent.loopId)}` : "at the top level"}; edges cannot cross a loop boundary.`;
  }
  return `does not exist.${didYouMean(id, level.ids)}`;
}

function checkChainReturn(checker: Checker, level: Level): void {
  const views = level.views;
  views.forEach((view, i) => {
    if (view.type !== "return" || i === views.length - 1) return;
    const after = views
      .slice(i + 1, i + 4)
      .map((v) => quote(v.id))
      .join(", ");
    checker.issues.push(
      makeIssue(
        "RETURN_HAS_OUTGOING_EDGES",
        `Step ${quote(view.id)} (return) ends the run, but without edges steps run in array order, so ${after}${views.length - i - 1 > 3 ? ", …" : ""} would never run; move the return last or add edges.`,
        view.path,
        { stepId: view.id },
      ),
    );
  });
}

// --- graph shape -----------------------------------------------------------------------------

function checkCycles(checker: Checker, level: Level, graph: WorkflowGraph<StepView>): Set<string> {
  const onCycle = new Set<string>();
  if (graph.isAcyclic) return onCycle;
  for (const cycle of findCycles(graph)) {
    cycle.steps.forEach((id) => onCycle.add(id));
    const loop = [...cycle.steps, cycle.steps[0]!].map((id) => quote(id)).join(" → ");
    // Without edges, steps run in array order: those links are implicit (via -1) and have no
    // edge to point at, so the issue points at a written link (a cycle always has one).
    const links = cycle.links
      .map((l) =>
        l.via === "when"
          ? `${quote(l.to)}.when references ${quote(l.from)}`
          : l.via < 0
            ? `${quote(l.from)} comes before ${quote(l.to)} in array order`
            : `edge #${l.via}`,
      )
      .join(", ");
    const first = cycle.links.find((l) => l.via === "when" || l.via >= 0) ?? cycle.links[0]!;
    const path =
      first.via === "when"
        ? [...graph.nodes.get(first.to)!.step.path, "when"]
        : first.via >= 0
          ? [...level.path, "edges", first.via]
          : [...graph.nodes.get(first.to)!.step.path];
    checker.issues.push(
      makeIssue(
        "CYCLE",
        `Steps form a cycle: ${loop} (${links}). A workflow must be acyclic; remove one of these links.`,
        path,
        {
          stepId: cycle.steps[0],
          ...(first.via !== "when" && first.via >= 0 ? { edgeIndex: first.via } : {}),
        },
      ),
    );
  }
  return onCycle;
}

function checkReachability(
  checker: Checker,
  level: Level,
  graph: WorkflowGraph<StepView>,
  onCycle: ReadonlySet<string>,
  explicitEdges: boolean,
): void {
  for (const id of unreachableSteps(graph)) {
    if (onCycle.has(id)) continue;
    checker.issues.push(
      makeIssue(
        "UNREACHABLE_STEP",
        `Step ${quote(id)} can never run: every path to it goes through a cycle or a return step.`,
        graph.nodes.get(id)!.step.path,
        { stepId: id },
      ),
    );
  }
  if (!explicitEdges || graph.ids.length < 2) return;
  const whenTargets = new Set([...graph.whenDeps.values()].flat());
  for (const id of graph.ids) {
    if (
      graph.incoming.get(id)!.length ||
      graph.outgoing.get(id)!.length ||
      graph.whenDeps.get(id)!.length ||
      whenTargets.has(id)
    )
      continue;
    checker.issues.push(
      makeIssue(
        "ISOLATED_STEP",
        `Step ${quote(id)} has no edges: it starts as soon as the run${level.parent ? " iteration" : ""} starts, in parallel with the other first steps. Connect it if it should run later.`,
        graph.nodes.get(id)!.step.path,
        { stepId: id },
      ),
    );
  }
}

// --- per-step policy -------------------------------------------------------------------------

function checkStepPolicy(checker: Checker, view: StepView): void {
  const { issues, constraints, options } = checker;
  const subject = `Step ${quote(view.id)} (${view.type})`;
  if (constraints.forbidden.has(view.type)) {
    issues.push(
      makeIssue(
        "FORBIDDEN_STEP_TYPE",
        `${subject}: ${quote(view.type)} steps are forbidden by this workflow's constraints.forbiddenStepTypes.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  } else if (options.forbiddenStepTypes?.includes(view.type)) {
    issues.push(
      makeIssue(
        "FORBIDDEN_STEP_TYPE",
        `${subject}: ${quote(view.type)} steps are forbidden by the workspace policy.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (options.inline && SAVED_WORKFLOW_STEP_TYPES.includes(view.type)) {
    issues.push(
      makeIssue(
        "NEEDS_SAVED_WORKFLOW",
        `${subject}: ${quote(view.type)} steps need a saved workflow; publish it and run that instead of running it inline.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (view.type === "propose_change" && !constraints.allowSelfModification) {
    issues.push(
      makeIssue(
        "SELF_MODIFICATION_DISABLED",
        `${subject}: proposals need constraints.allowSelfModification set to true.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (isStepType(view.type) && STEP_CATALOG[view.type].waits && view.raw.timeoutMs !== undefined) {
    const instead = view.type === "delay" ? "the delay itself" : "config.timeout";
    issues.push(
      makeIssue(
        "IGNORED_FIELD",
        `${subject}: timeoutMs is ignored on ${view.type} steps; use ${instead}.`,
        [...view.path, "timeoutMs"],
        { stepId: view.id },
      ),
    );
  }
  const config = isPlainObject(view.raw.config) ? view.raw.config : {};
  // A wait longer than the run's deadline is silently cut short by it: say so at publish time.
  const waitField =
    view.type === "approval" || view.type === "wait_for_event" || view.type === "task"
      ? "timeout"
      : view.type === "delay"
        ? "duration"
        : null;
  const wait = waitField ? tryParseDuration(config[waitField]) : null;
  if (waitField && wait?.ok && wait.ms > constraints.timeoutMs) {
    issues.push(
      makeIssue(
        "WAIT_EXCEEDS_DEADLINE",
        `${subject}: config.${waitField} (${formatDuration(wait.ms)}) is longer than the run's deadline (constraints.timeoutMs = ${formatDuration(constraints.timeoutMs)}); the run will time out first. Raise constraints.timeoutMs or shorten the ${waitField}.`,
        [...view.path, "config", waitField],
        { stepId: view.id },
      ),
    );
  }
  for (const [field, url] of outboundUrlFields(view.type, config)) {
    const host = privateHost(url);
    if (host) {
      issues.push(
        makeIssue(
          "PRIVATE_ADDRESS",
          `${subject}: ${fieldText(["config", ...field])} points at ${quote(host)}, a private, loopback, link-local or metadata address; it is refused at run time unless the workspace allows private addresses.`,
          [...view.path, "config", ...field],
          { stepId: view.id },
        ),
      );
    }
  }
  if (view.type === "propose_change" && isPlainObject(config.definition))
    checkProposedDefinition(checker, view, config.definition);
  if (view.type === "tool" && options.mcpServers) checkToolStep(checker, view, config);
}

function checkToolStep(checker: Checker, view: StepView, config: Record<string, unknown>): void {
  const catalog = checker.options.mcpServers!;
  const subject = `Step ${quote(view.id)} (tool)`;
  const at = (...field: Array<string | number>) => [...view.path, "config", ...field];
  const { server, tool } = config;
  if (typeof server !== "string" || typeof tool !== "string") return;
  const known = Object.prototype.hasOwnProperty.call(catalog, server) ? catalog[server] : undefined;
  if (!known) {
    const names = Object.keys(catalog);
    checker.issues.push(
      makeIssue(
        "UNKNOWN_MCP_SERVER",
        `${subject}: no MCP server named ${quote(server)} is configured in this workspace${names.length ? ` (configured: ${names.join(", ")})` : ""}; a workspace admin adds servers under Settings → Integrations.${didYouMean(server, names)}`,
        at("server"),
        { stepId: view.id },
      ),
    );
    return;
  }
  if (!known.tools) return;
  const found = known.tools.find((t) => t.name === tool);
  if (!found) {
    const names = known.tools.map((t) => t.name);
    checker.issues.push(
      makeIssue(
        "UNKNOWN_MCP_TOOL",
        `${subject}: MCP server ${quote(server)} has no tool named ${quote(tool)} (it offers: ${names.join(", ") || "none"}, as of its last tool list).${didYouMean(tool, names)}`,
        at("tool"),
        { stepId: view.id },
      ),
    );
    return;
  }
  const args = isPlainObject(config.arguments) ? config.arguments : {};
  for (const name of found.required) {
    if (!Object.prototype.hasOwnProperty.call(args, name))
      checker.issues.push(
        makeIssue(
          "MISSING_TOOL_ARGUMENT",
          `${subject}: tool ${quote(tool)} requires the argument ${quote(name)}; add it to config.arguments.`,
          at("arguments", name),
          { stepId: view.id },
        ),
      );
  }
}

/** The URLs a step calls out to, by config field (the private-address hint; the proposal risk rules). */
export function outboundUrlFields(
  type: unknown,
  config: Record<string, unknown>,
): Array<[IssuePath, string]> {
  const out: Array<[IssuePath, string]> = [];
  if (type === "http" && typeof config.url === "string") out.push([["url"], config.url]);
  if (type === "notify" && config.channel !== "email" && typeof config.target === "string")
    out.push([["target"], config.target]);
  if (type === "agent" && Array.isArray(config.tools)) {
    config.tools.forEach((tool, i) => {
      if (isPlainObject(tool) && tool.type === "mcp" && typeof tool.url === "string")
        out.push([["tools", i, "url"], tool.url]);
    });
  }
  return out;
}

/** The host of a literal URL when it is obviously private (the run-time guard also resolves DNS). */
export function privateHost(url: string): string | null {
  if (url.includes("{{")) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  const bare = host.replace(/^\[|\]$/g, "");
  if (
    bare === "localhost" ||
    /\.(localhost|local|internal)$/.test(bare) ||
    bare === "metadata.google.internal"
  )
    return host;
  // IP literals: the same classifier as the run-time SSRF guard (lib/net/ip.ts), so the editor's
  // warning and the guard never disagree (IPv4-mapped, 6to4, CGNAT, metadata… included).
  const ip = parseIp(bare);
  if (ip) return classifyIp(ip) === "public" ? null : host;
  return null;
}

function checkProposedDefinition(
  checker: Checker,
  view: StepView,
  definition: Record<string, unknown>,
): void {
  if (checker.nesting > 0) return; // one level is enough to catch mistakes; deeper proposals are checked when applied
  const nested = validateNested(definition, checker.options, checker.nesting + 1);
  for (const issue of nested.issues.filter((i) => i.severity === "error").slice(0, 20)) {
    checker.issues.push(
      makeIssue(
        "INVALID_PROPOSED_DEFINITION",
        `Step ${quote(view.id)} (propose_change): the proposed definition is invalid — ${issue.message}`,
        [...view.path, "config", "definition", ...issue.path],
        { stepId: view.id },
      ),
    );
  }
}

// --- references ------------------------------------------------------------------------------

function checkStepReferences(checker: Checker, level: Level, view: StepView): void {
  const { refs, errors, whenRefs } = stepReferences(view.raw);
  const subject = `Step ${quote(view.id)} (${view.type})`;
  for (const { error, location } of errors) {
    checker.issues.push(
      makeIssue(
        error.code,
        `${subject}: ${fieldText([...location])}: ${error.message}`,
        [...view.path, ...location],
        { stepId: view.id },
      ),
    );
  }
  let warnedCommand = false;
  for (const located of refs) {
    const at = `${subject}: ${fieldText([...located.location])}`;
    const path = [...view.path, ...located.location];
    const report = (code: IssueCode, message: string) =>
      checker.issues.push(makeIssue(code, `${at} ${message}`, path, { stepId: view.id }));
    const ref = located.reference;
    if (ref.root === "steps")
      checkStepRef(checker, level, view, ref.stepId, whenRefs.has(located), ref, report);
    else checkCommonRef(checker, ref, enclosingLoop(level), report);
    if (
      ref.root === "secrets" &&
      !secretAllowed(view.type, located.location, whenRefs.has(located))
    ) {
      const fields = isStepType(view.type) ? STEP_CATALOG[view.type].secretFields : [];
      const allowed = fields.length
        ? `secrets may only be used in ${fields.map((f) => `config.${f}`).join(", ")} of ${article(view.type)} ${view.type} step`
        : `${view.type} steps cannot use secrets`;
      report(
        "SECRET_NOT_ALLOWED",
        `references {{ secrets.${ref.name} }}, but ${allowed}, so secret values never end up in stored inputs or outputs.`,
      );
    }
    if (view.type === "script" && located.location[1] === "command" && !warnedCommand) {
      warnedCommand = true;
      report(
        "TEMPLATE_IN_COMMAND",
        `interpolates {{ ${ref.path.source} }} into a shell command; pass values through env instead (env: { VALUE: "{{ ${ref.path.source} }}" } and "$VALUE" in the command) to rule out shell injection.`,
      );
    }
  }
}

function secretAllowed(
  type: string,
  location: readonly (string | number)[],
  inWhen: boolean,
): boolean {
  if (inWhen || location[0] !== "config" || !isStepType(type)) return false;
  return STEP_CATALOG[type].secretFields.includes(String(location[1]));
}

type Report = (code: IssueCode, message: string) => void;

/** The innermost loop around a level (its id and raw config), or undefined at the top level. */
function enclosingLoop(level: Level): { id: string; config: Record<string, unknown> } | undefined {
  const parent = level.parent;
  if (!parent) return undefined;
  const raw = parent.level.views.find((v) => v.id === parent.loopId)?.raw.config;
  return { id: parent.loopId, config: isPlainObject(raw) ? raw : {} };
}

/** Why `loop.<field>` does not exist in this loop (its config decides), or null. */
function loopFieldProblem(
  loop: { id: string; config: Record<string, unknown> },
  field: string,
): string | null {
  const batched = loop.config.batchSize !== undefined;
  if (field === "item" && batched)
    return `loop ${quote(loop.id)} runs in batches (batchSize), so there is no loop.item; use loop.batch (its items) and loop.index (the batch number).`;
  if (field === "batch" && !batched)
    return `loop ${quote(loop.id)} has no batchSize, so there is no loop.batch; use loop.item, or set a batchSize.`;
  if (field === "state" && loop.config.state === undefined)
    return `loop ${quote(loop.id)} declares no "state", so there is no loop.state; add "state" and "stateFrom" to its config.`;
  return null;
}

function checkCommonRef(
  checker: Checker,
  ref: TemplateReference,
  loop: { id: string; config: Record<string, unknown> } | undefined,
  report: Report,
): void {
  switch (ref.root) {
    case "input":
      if (ref.name !== undefined && !checker.inputs.has(ref.name)) {
        report(
          "UNKNOWN_INPUT_REFERENCE",
          `references {{ ${ref.path.source} }}, but the workflow declares no input ${quote(ref.name)}${declared(checker.inputs)}.${didYouMean(ref.name, checker.inputs)}`,
        );
      }
      return;
    case "vars":
      if (ref.name !== undefined && !checker.vars.has(ref.name)) {
        report(
          "UNKNOWN_VARIABLE_REFERENCE",
          `references {{ ${ref.path.source} }}, but the workflow declares no variable ${quote(ref.name)}${declared(checker.vars)}.${didYouMean(ref.name, checker.vars)}`,
        );
      }
      return;
    case "loop": {
      if (!loop) {
        report(
          "LOOP_REFERENCE_OUTSIDE_LOOP",
          `references {{ ${ref.path.source} }}, which only exists inside a loop body.`,
        );
        return;
      }
      const problem = loopFieldProblem(loop, ref.field);
      if (problem)
        report("LOOP_VARIABLE_UNAVAILABLE", `references {{ ${ref.path.source} }}, but ${problem}`);
      return;
    }
    default:
      return;
  }
}

function checkStepRef(
  checker: Checker,
  level: Level,
  view: StepView,
  target: string,
  inWhen: boolean,
  ref: TemplateReference,
  report: Report,
): void {
  const shown = `{{ ${ref.path.source} }}`;
  if (target === view.id) {
    report(
      "REFERENCE_NOT_UPSTREAM",
      `references ${shown}, its own step; a step cannot use its own output or status.`,
    );
    return;
  }
  if (level.ids.has(target)) {
    // In `when`, a reference is a dependency: the step waits for it (cycles are reported separately).
    const decided = level.ordered!.has(view.id);
    if (!inWhen && decided && !level.ancestry!.isUpstream(target, view.id)) {
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, but ${quote(target)} is not upstream of ${quote(view.id)}, so it may not have finished; add an edge path from ${quote(target)} to ${quote(view.id)} (or reference it in ${quote(view.id)}.when to wait for it).`,
      );
    } else if (
      !inWhen &&
      decided &&
      ref.root === "steps" &&
      ref.field === "output" &&
      mayBeSkippedFor(level, target, view.id)
    ) {
      report(
        "MAY_READ_SKIPPED_STEP",
        `references ${shown}, but ${quote(target)} may be skipped on a path where ${quote(view.id)} still runs (a branch, a when, an approval port or an error edge leads to it); the reference then reads nothing (null, or the key is left out).`,
      );
    }
    return;
  }
  for (let p = level.parent; p; p = p.level.parent) {
    if (!p.level.ids.has(target)) continue;
    if (target === p.loopId)
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, the loop that contains it, which has not finished while its body runs; use loop.item / loop.index.`,
      );
    else if (!p.level.ancestry!.isUpstream(target, p.loopId))
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, but ${quote(target)} is not upstream of loop ${quote(p.loopId)}, so it may not have finished when the body runs.`,
      );
    return;
  }
  const owner = checker.owners.get(target);
  if (owner !== undefined && owner !== null) {
    report(
      "REFERENCE_INTO_LOOP_BODY",
      `references ${shown}, but ${quote(target)} is inside the body of loop ${quote(owner)}, which runs once per item; use {{ steps.${owner}.output.data }} (the iteration values) instead.`,
    );
    return;
  }
  report(
    "UNKNOWN_STEP_REFERENCE",
    `references ${shown}, but there is no step ${quote(target)}.${didYouMean(target, checker.owners.keys())}`,
  );
}

/**
 * When each step of a level runs, as the set of decisions it needs ("gates"): an edge from a
 * port of a step with several ports (condition true/false, approval approved/rejected, loop
 * ports) or from the error port adds `<source>:<port>`; a `when` adds `when:<step>`; a step runs
 * when any incoming edge is taken, so its gates are those all incoming edges share — and when the
 * incoming edges differ only by ports that together cover every outcome of one source (the two
 * branches of a condition rejoining), that decision drops out. An empty set: the step runs
 * whenever the run does. Failures under the default skip policy are left out (every step would
 * be gated). Only ordered steps (no cycles) get an entry.
 */
function gatesIn(level: Level): ReadonlyMap<string, ReadonlySet<string>> {
  if (level.gates) return level.gates;
  const gates = new Map<string, ReadonlySet<string>>();
  const graph = level.graph;
  const outcomes = (id: string): readonly string[] => {
    const node = graph?.nodes.get(id);
    // portsOf already lists the error port after the type's own ports.
    return node && isStepType(node.type) ? portsOf(node.type) : [ERROR_PORT];
  };
  if (graph) {
    for (const id of graph.order) {
      const node = graph.nodes.get(id)!;
      const incoming = (graph.incoming.get(id) ?? []).filter((e) => gates.has(e.from));
      let mine = new Set<string>();
      if (incoming.length > 0) {
        const sets = incoming.map((e) => {
          const g = new Set(gates.get(e.from)!);
          if (e.port === ERROR_PORT || outcomes(e.from).length > 2) g.add(`${e.from}:${e.port}`);
          return g;
        });
        const shared = new Set([...sets[0]!].filter((x) => sets.every((g) => g.has(x))));
        const rest = sets.map((g) => [...g].filter((x) => !shared.has(x)));
        mine = shared;
        if (rest.some((r) => r.length > 0)) {
          // Covered when every edge differs only by one port of the same source and the ports
          // together are all of that source's outcomes (an edge with nothing left covers all).
          const sources = new Set(rest.flat().map((x) => x.slice(0, x.lastIndexOf(":"))));
          const covered =
            rest.some((r) => r.length === 0) ||
            (sources.size === 1 &&
              rest.every((r) => r.length === 1) &&
              (() => {
                const source = [...sources][0]!;
                const seen = new Set(rest.map((r) => r[0]!.slice(source.length + 1)));
                // The error outcome only matters when some edge leaves from it.
                return outcomes(source)
                  .filter((o) => o !== ERROR_PORT || seen.has(ERROR_PORT))
                  .every((o) => seen.has(o));
              })());
          if (!covered) mine.add(`join:${id}`);
        }
      }
      if (node.step.when !== undefined) mine.add(`when:${id}`);
      gates.set(id, mine);
    }
  }
  level.gates = gates;
  return gates;
}

/** Whether `target` may be skipped on a path where `reader` runs (null reader: the run's end). */
function mayBeSkippedFor(level: Level, target: string, reader: string | null): boolean {
  const gates = gatesIn(level);
  const needs = gates.get(target);
  if (!needs || needs.size === 0) return false;
  if (reader === null) return true;
  const has = gates.get(reader);
  return !has || [...needs].some((g) => !has.has(g));
}

function checkOutput(checker: Checker): void {
  const output = checker.root.output;
  if (output === undefined) return;
  const refs: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  scanValue(output, ["output"], refs, errors);
  for (const { error, location } of errors)
    checker.issues.push(
      makeIssue(error.code, `Workflow output: ${fieldText([...location])}: ${error.message}`, [
        ...location,
      ]),
    );
  for (const { reference: ref, location } of refs) {
    const report: Report = (code, message) =>
      checker.issues.push(
        makeIssue(code, `Workflow ${fieldText([...location])} ${message}`, [...location]),
      );
    if (ref.root === "steps") {
      const owner = checker.owners.get(ref.stepId);
      const top = checker.topLevel;
      if (owner === null && ref.field === "output" && top && mayBeSkippedFor(top, ref.stepId, null))
        checker.issues.push(
          makeIssue(
            "MAY_READ_SKIPPED_STEP",
            `Workflow ${fieldText([...location])} references {{ ${ref.path.source} }}, but ${quote(ref.stepId)} may be skipped on some paths; the output then reads nothing there (null, or the key is left out).`,
            [...location],
          ),
        );
      if (owner === undefined)
        report(
          "UNKNOWN_STEP_REFERENCE",
          `references {{ ${ref.path.source} }}, but there is no step ${quote(ref.stepId)}.${didYouMean(ref.stepId, checker.owners.keys())}`,
        );
      else if (owner !== null)
        report(
          "REFERENCE_INTO_LOOP_BODY",
          `references {{ ${ref.path.source} }}, but ${quote(ref.stepId)} is inside the body of loop ${quote(owner)}; use {{ steps.${owner}.output.data }} instead.`,
        );
    } else if (ref.root === "secrets") {
      report(
        "SECRET_NOT_ALLOWED",
        `references {{ secrets.${ref.name} }}; the run output is stored, so it cannot contain secrets.`,
      );
    } else checkCommonRef(checker, ref, undefined, report);
  }
}

function checkStepCount(checker: Checker, levels: readonly Level[]): void {
  const top = levels[0]!.rawSteps.length;
  if (top > MAX_STEPS_HARD_CAP) return; // the schema already said so
  const total = levels.reduce((n, level) => n + level.rawSteps.length, 0);
  const workspace = checker.options.maxSteps;
  const limit = Math.min(
    checker.constraints.maxSteps,
    workspace ?? MAX_STEPS_HARD_CAP,
    MAX_STEPS_HARD_CAP,
  );
  if (total <= limit) return;
  const inBodies = total - top;
  const source =
    workspace !== undefined && workspace < checker.constraints.maxSteps
      ? `the workspace limit of ${workspace}`
      : `constraints.maxSteps (${checker.constraints.maxSteps})`;
  checker.issues.push(
    makeIssue(
      "TOO_MANY_STEPS",
      `The workflow defines ${total} steps${inBodies ? ` (${inBodies} inside loop bodies)` : ""}, more than ${source} allows. Remove steps${source.startsWith("constraints") ? " or raise constraints.maxSteps (hard cap 1000)" : ""}.`,
      source.startsWith("constraints") ? ["constraints", "maxSteps"] : ["steps"],
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function declared(names: ReadonlySet<string>): string {
  return names.size === 0
    ? " (it declares none)"
    : ` (declared: ${[...names].slice(0, 10).join(", ")}${names.size > 10 ? ", …" : ""})`;
}

function article(word: string): string {
  return /^([aeiou]|http)/.test(word) ? "an" : "a";
}

export type { StepType };
