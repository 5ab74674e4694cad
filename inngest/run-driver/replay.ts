/**
 * The proposal dry run (SPEC §8): replays recorded runs through a proposed definition and reports
 * which would take a different path or fail. It drives the graph with production's own driver
 * (`runGraph`: the same planner, join rules, `when` evaluation and loop orchestration) and plugs
 * in simulated effects instead of durable ones:
 * - `transform`, `condition` and `return` run for real: config resolved and parsed as production
 *   does, then the real action handler;
 * - every other step type (and `code`, which needs the sandbox) returns the outcome the original
 *   run recorded at the same step path; a step it never executed completes with a null output
 *   and is reported as not comparable;
 * - loops with a body resolve their items for real and run each iteration through `runGraph`;
 * - nothing durable, no database, no network, no scripts, no LLM: `env.step` throws if reached.
 */
import {
  deepEqual,
  normalizeDefinition,
  buildRunnableGraph,
  collectReferences,
  stepsContext,
  STEP_CATALOG,
  type JsonValue,
  type RunVerdict,
  type StepOutcome,
  type StepType,
  type TemplateContext,
  type WorkflowDefinition,
} from "@/lib/workflow";
import type {
  DryRunReport,
  DryRunRunReport,
  DryRunVerdict,
  RecordedRun,
  RecordedStep,
} from "@/lib/workflow/dry-run-types";
import { createLogger } from "@/lib/log";
import type { RunPlan } from "@/server/services/run-state/run-plan";
import { countAttempt } from "./execute-step";
import { runLoopIterations, type LoopStart } from "./loop-iterations";
import { runEnding } from "@/server/services/step-execution/finish-bodies";
import { resolveLoopStart } from "@/server/services/step-execution/loop-bodies";
import { evaluatePureStep as evaluatePure, PURE_STEP_TYPES } from "./pure-step";
import { runGraph } from "./run-graph";
import { Semaphore } from "./semaphore";
import type { DriverEffects, DriverEnv, DriverNode, Scope, StepTools } from "./types";

/**
 * A run is `not_comparable` when more than this share of the steps the proposal would execute
 * have no recorded outcome to stand on (their outputs are guesses, so the path is too).
 */
const NOT_COMPARABLE_SHARE = 0.5;

export interface DryRunOptions {
  /** Overrides the proposed definition's `variables` (the `vars` template root). */
  vars?: Record<string, JsonValue>;
  /** `run.workflowId` in templates. */
  workflowId?: string;
}

export async function dryRunDefinition(args: {
  /** The proposed definition; normalized (defaults, edge ports) here. */
  definition: unknown;
  baseHash: string;
  proposedHash: string;
  runs: RecordedRun[];
  vars?: Record<string, JsonValue>;
  workflowId?: string;
  now?: () => Date;
  /** Called after each replayed run (progress for the review screen). */
  onProgress?: (done: number, total: number) => Promise<void>;
}): Promise<DryRunReport> {
  const definition = normalizeDefinition(args.definition);
  const reports: DryRunRunReport[] = [];
  // One run at a time: the report is computed off the hot path and keeps memory flat.
  for (const run of args.runs) {
    reports.push(
      await dryRunOne(definition, run, { vars: args.vars, workflowId: args.workflowId }),
    );
    await args.onProgress?.(reports.length, args.runs.length);
  }
  const totals: Record<DryRunVerdict, number> = {
    same_path: 0,
    different_path: 0,
    would_fail: 0,
    not_comparable: 0,
  };
  for (const r of reports) totals[r.verdict]++;
  return {
    proposedHash: args.proposedHash,
    baseHash: args.baseHash,
    computedAt: (args.now ?? (() => new Date()))().toISOString(),
    runs: reports,
    totals,
  };
}

/** What the simulated effects saw, by step path (loop iterations included). */
interface SimLog {
  /** Executed paths in start order, with their outcome once known. */
  executed: Map<string, StepOutcome | null>;
  notComparable: Set<string>;
  /** The path at which constraints.maxSteps stopped the run. */
  abortPath: string | null;
}

/**
 * Replays one recorded run through `definition` (normalized if it is not already). Verdict
 * rules, first match wins:
 * 1. `not_comparable`: the recorded run executed no step, or more than half of the steps the
 *    proposal would execute have no recorded outcome (new side-effecting steps, steps whose
 *    type changed, pure steps that read secrets);
 * 2. `would_fail`: the simulated run ends failed/cancelled/timed out and the recorded run did
 *    not end with that status (a run that already failed and still fails is judged by its path);
 * 3. `different_path`: the executed sets differ;
 * 4. `same_path`.
 * `failure` is set whenever the simulated run does not complete, whatever the verdict.
 */
export async function dryRunOne(
  definition: unknown,
  run: RecordedRun,
  options: DryRunOptions = {},
): Promise<DryRunRunReport> {
  const def = normalizeDefinition(definition);
  const graph = buildRunnableGraph(def);
  const recorded = new Map(run.steps.map((s) => [s.path, s]));
  const log: SimLog = {
    executed: new Map(),
    notComparable: new Set(),
    abortPath: null,
  };
  const env = simulationEnv(def, run, options, simulatedEffects(recorded, log));
  const result = await runGraph(env, graph, { prefix: "" });
  env.halted = true;
  const end = finishSimulation(env, def, result.verdict, result.state, log);

  const simExecuted = [...log.executed]
    .filter(([, o]) => o?.kind === "completed" || o?.kind === "failed")
    .map(([path]) => path);
  const recExecuted = run.steps
    .filter((s) => s.status === "completed" || s.status === "failed")
    .map((s) => s.path);
  const simSet = new Set(simExecuted);
  const recSet = new Set(recExecuted);
  const newlyExecuted = simExecuted.filter((p) => !recSet.has(p));
  // Recorded steps the proposal would not run: skipped, cancelled, or no longer defined.
  const newlySkipped = recExecuted.filter((p) => !simSet.has(p));
  const notComparable = simExecuted.filter((p) => log.notComparable.has(p));

  const outputBefore = run.output ?? null;
  const outputAfter = (end.output ?? null) as JsonValue | null;
  let verdict: DryRunVerdict;
  if (
    recExecuted.length === 0 ||
    (simExecuted.length > 0 && notComparable.length / simExecuted.length > NOT_COMPARABLE_SHARE)
  ) {
    verdict = "not_comparable";
  } else if (end.status !== "completed" && end.status !== run.status) {
    verdict = "would_fail";
  } else if (newlyExecuted.length > 0 || newlySkipped.length > 0) {
    verdict = "different_path";
  } else {
    verdict = "same_path";
  }
  return {
    runId: run.runId,
    verdict,
    newlyExecuted,
    newlySkipped,
    notComparable,
    failure: end.failure,
    outputBefore,
    outputAfter,
    outputChanged: !deepEqual(outputBefore, outputAfter),
  };
}

function simulationEnv(
  def: WorkflowDefinition,
  run: RecordedRun,
  options: DryRunOptions,
  effects: DriverEffects,
): DriverEnv {
  const workflowId = options.workflowId ?? "dry-run";
  const startedAt = new Date();
  const deadline = startedAt.getTime() + def.constraints.timeoutMs;
  const plan: RunPlan = {
    runId: run.runId,
    workspaceId: "dry-run",
    workflowId,
    rootRunId: run.runId,
    parentRunId: null,
    version: run.versionLabel ?? "proposed",
    hash: "",
    definition: def as unknown as Record<string, unknown>,
    input: run.input,
    trigger: run.trigger,
    triggerType: "dry_run",
    initiatorUserId: null,
    startedAt: startedAt.toISOString(),
    deadlineAt: new Date(deadline).toISOString(),
    seed: null,
  };
  return {
    step: noDurableSteps(),
    plan,
    definition: def,
    // Like run-workflow's base; `secrets` stay out (a step that reads one is not comparable).
    base: {
      input: run.input,
      vars: options.vars ?? def.variables,
      run: { id: run.runId, workflowId },
      trigger: run.trigger,
    },
    slots: new Semaphore(def.constraints.maxParallel),
    attempts: 0,
    maxAttempts: def.constraints.maxSteps,
    deadline,
    halted: false,
    danglingWaits: 0,
    active: 0,
    waiting: 0,
    effects,
  };
}

/** Any use of the durable step tools in a dry run is a bug: fail loudly, never touch the world. */
export function noDurableSteps(what = "dry run"): StepTools {
  return new Proxy(
    {},
    {
      get(_target, tool) {
        return () => {
          throw new Error(`The ${what} reached a durable step tool (step.${String(tool)})`);
        };
      },
    },
  ) as StepTools;
}

function simulatedEffects(recorded: Map<string, RecordedStep>, log: SimLog): DriverEffects {
  return {
    async execute(env, scope, node, ctx) {
      const path = scope.prefix + node.id;
      if (env.halted) return { kind: "cancelled", reason: "run_ended" };
      log.executed.set(path, null);
      let outcome: StepOutcome;
      if (!countAttempt(env, path)) {
        log.abortPath ??= path;
        outcome = { kind: "failed", error: { message: env.abort!.message } };
      } else {
        outcome = await simulateStep(env, scope, path, node, ctx, recorded, log);
      }
      log.executed.set(path, outcome);
      return outcome;
    },
    // Nothing to record: the report compares executed sets, and a step not executed is skipped.
    async recordSkips() {},
  };
}

async function simulateStep(
  env: DriverEnv,
  scope: Scope,
  path: string,
  node: DriverNode,
  ctx: TemplateContext,
  recorded: Map<string, RecordedStep>,
  log: SimLog,
): Promise<StepOutcome> {
  if (PURE_STEP_TYPES.has(node.type)) {
    // Production would resolve the secrets; the dry run has none, so it cannot know the value.
    if (collectReferences(node.config ?? {}).secrets.length > 0) {
      log.notComparable.add(path);
      return recordedOutcome(recorded.get(path), node) ?? placeholder();
    }
    return evaluatePureStep(env, path, node, ctx);
  }
  const body = (node.config as { body?: unknown } | undefined)?.body;
  if (node.type === "loop" && body) {
    const begun = beginLoop(node, ctx);
    if ("error" in begun) return { kind: "failed", error: begun.error };
    return runLoopIterations(env, scope, path, node, ctx, begun);
  }
  const outcome = recordedOutcome(recorded.get(path), node);
  if (!outcome) {
    log.notComparable.add(path);
    return placeholder();
  }
  if (node.type === "loop") {
    // A workflow loop's iterations are child runs: replayed as recorded, as a whole.
    for (const [p, s] of recorded) {
      const o = p.startsWith(`${path}[`)
        ? recordedOutcome(s, { id: s.stepId, type: s.stepType })
        : null;
      if (o) log.executed.set(p, o);
    }
  }
  return outcome;
}

/** A side effect nobody recorded: assumed to succeed on the type's primary port, output null. */
function placeholder(): StepOutcome {
  return { kind: "completed", output: null };
}

/** The recorded final outcome at this path, if the original run executed the same step type. */
function recordedOutcome(rec: RecordedStep | undefined, node: DriverNode): StepOutcome | null {
  if (!rec || rec.stepType !== node.type) return null;
  if (rec.status === "failed")
    return { kind: "failed", error: rec.error ?? { message: "The step failed" } };
  if (rec.status !== "completed") return null;
  const ports: readonly string[] =
    node.type in STEP_CATALOG ? STEP_CATALOG[node.type as StepType].ports : [];
  return {
    kind: "completed",
    ...(rec.port && ports.includes(rec.port) ? { port: rec.port } : {}),
    output: rec.output,
  };
}

/**
 * One attempt of a pure step, as production evaluates it (pure-step.ts) minus the recording.
 * Pure steps fail only with user or internal failures, which production never retries.
 */
export async function evaluatePureStep(
  env: DriverEnv,
  path: string,
  node: DriverNode,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  return (await evaluatePure(env, path, node, ctx, dryRunLog)).outcome;
}

const dryRunLog = createLogger({ component: "dry-run" });

/** A loop's items, by the production rule (`resolveLoopStart`), nothing recorded. */
export function beginLoop(
  node: DriverNode,
  ctx: TemplateContext,
): { error: { message: string; class: "user" } } | LoopStart {
  const start = resolveLoopStart(node.config, ctx);
  return "error" in start ? { error: { message: start.error, class: "user" } } : start;
}

/** How the run would end: the production rule (`runEnding`), with failures located by path. */
function finishSimulation(
  env: DriverEnv,
  def: WorkflowDefinition,
  verdict: RunVerdict,
  state: Parameters<typeof stepsContext>[0],
  log: SimLog,
): {
  status: string;
  output: unknown;
  failure: DryRunRunReport["failure"];
} {
  const end = runEnding({
    verdict,
    state,
    base: env.base,
    outputTemplate: def.output,
    abort: env.abort,
  });
  if (end.status === "completed") return { status: end.status, output: end.output, failure: null };
  if (env.abort)
    return {
      status: end.status,
      output: null,
      failure: { stepPath: log.abortPath, message: env.abort.message },
    };
  // A completed verdict that ended failed: the output template could not be resolved.
  if (verdict.status === "completed")
    return {
      status: end.status,
      output: null,
      failure: { stepPath: null, message: String(end.error?.message) },
    };
  return { status: end.status, output: null, failure: describeFailure(verdict, log) };
}

/** Where and why: follows a failed loop into the iteration step that failed it. */
function describeFailure(verdict: RunVerdict, log: SimLog): DryRunRunReport["failure"] {
  const stepId = verdict.stepId ?? null;
  if (verdict.reason === "approval_rejected")
    return {
      stepPath: stepId,
      message: `Approval "${stepId}" was rejected and has no "rejected" edge`,
    };
  if (verdict.reason === "approval_timeout")
    return {
      stepPath: stepId,
      message: `Approval "${stepId}" expired without a decision and has no "rejected" edge`,
    };
  if (verdict.reason === "step_cancelled")
    return { stepPath: stepId, message: `Step "${stepId}" was cancelled` };
  if (!stepId)
    return { stepPath: null, message: `The run would end ${verdict.status} (${verdict.reason})` };
  let path = stepId;
  let error = errorOf(log.executed.get(path));
  for (;;) {
    if (!isRecord(error) || typeof error.index !== "number" || typeof error.stepId !== "string")
      break;
    const inner = `${path}[${error.index}].${error.stepId}`;
    if (!log.executed.has(inner)) break;
    path = inner;
    error = errorOf(log.executed.get(path));
  }
  const message = isRecord(error) && typeof error.message === "string" ? error.message : null;
  const policy = verdict.reason === "fail_run" ? " and its edge says fail_run" : "";
  return {
    stepPath: path,
    message: `Step "${path}" failed${policy}${message ? `: ${message}` : ""}`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorOf(outcome: StepOutcome | null | undefined): unknown {
  return outcome?.kind === "failed" ? outcome.error : undefined;
}
