/**
 * The semantic checks of validateDefinition (the rules zod cannot express), run on whatever
 * parts of the input are usable: levels are gathered, then each level's edges, graph shape, step
 * policy and references are checked.
 */
import { comparisonProblems, typeScopeOf } from "./comparison-types";
import { DEFAULT_MAX_STEPS, MAX_STEPS_HARD_CAP } from "./definition";
import { buildGraph, computeAncestry, type GraphEdgeLike } from "./graph";
import { fieldText, makeIssue, type IssuePath, type ValidationIssue } from "./issues";
import { isPlainObject, quote } from "./json";
import { StepId } from "./primitives";
import { isStepType } from "./steps";
import type { ValidateOptions } from "./validate";
import { checkChainReturn, checkCycles, checkEdges, checkReachability } from "./validate-edges";
import type { Checker, Level, StepView } from "./validate-model";
import { checkOutput, checkStepReferences } from "./validate-references";
import { checkStepPolicy } from "./validate-steps";

export function semanticIssues(
  root: Record<string, unknown>,
  options: ValidateOptions,
  nesting: number,
  validateNested: Checker["validateNested"],
): ValidationIssue[] {
  const checker: Checker = {
    root,
    options,
    nesting,
    validateNested,
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
