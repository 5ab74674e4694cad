/**
 * The run driver's side of the proposal dry run (SPEC §8; the report is
 * server/services/proposals/dry-run.ts): replays one recorded run through a proposed definition
 * with production's own driver (`runGraph`: the same planner, join rules, `when` evaluation and
 * loop orchestration) and simulated effects instead of durable ones:
 * - `transform`, `condition`, `return` and `code` (QuickJS, in process, no host access) run for
 *   real: config resolved and parsed as production does, then the real action handler;
 * - side-effecting steps (catalog `sideEffect`: http, script, llm, agent, tool, notify,
 *   emit_event, propose_change, subworkflow) are never executed: the original run's recorded
 *   outcome at the same path is served when the step type and the resolved config (canonical
 *   JSON, secrets as their redaction labels) match; otherwise the step is `unverified` and fails
 *   with class `unverified`, so its branch stops there (issue #29);
 * - waits, approvals, tasks and delays return the outcome the original run recorded at the same
 *   step path; one it never executed completes with a null output and is not comparable;
 * - loops with a body resolve their items for real and run each iteration through `runGraph`;
 * - nothing durable, no database, no network, no scripts, no LLM: `env.step` throws if reached.
 */
import {
  buildRunnableGraph,
  collectReferences,
  STEP_CATALOG,
  type StepOutcome,
  type StepType,
  type TemplateContext,
  type WorkflowDefinition,
} from "@/lib/workflow";
import type {
  DryRunOptions,
  RecordedReplay,
  RecordedRun,
  RecordedStep,
  ReplayRecordedRun,
} from "@/lib/workflow/dry-run-types";
import canonicalize from "canonicalize";
import { createLogger } from "@/lib/log";
import type { JsonValue } from "@/lib/workflow/json";
import { SIDE_EFFECT_STEP_TYPES } from "@/lib/workflow/step-traits";
import type { RunPlan } from "@/server/services/run-state/run-plan";
import { countAttempt } from "./execute-step";
import { runLoopIterations, type LoopStart } from "./loop-iterations";
import { evaluatePureStep as evaluatePure, PURE_STEP_TYPES } from "./pure-step";
import { runGraph } from "./run-graph";
import { Semaphore } from "./semaphore";
import type { DriverEffects, DriverEnv, DriverNode, Scope, StepEffects, StepTools } from "./types";

type SimLog = Pick<
  RecordedReplay,
  "executed" | "notComparable" | "abortPath" | "unverified" | "types"
>;

/** Recomputed in the replay: pure types, and `code` (QuickJS in process, no host access). */
const RECOMPUTED_STEP_TYPES: ReadonlySet<string> = new Set([...PURE_STEP_TYPES, "code"]);

/**
 * The replay with step execution's real pure evaluation plugged in (`stepEffects`, built by the
 * caller): replays `run` through `def` (already normalized); the dry run's verdicts are the caller's.
 */
export const recordedRunReplay =
  (stepEffects: StepEffects): ReplayRecordedRun =>
  async (def, run, options) => {
    const graph = buildRunnableGraph(def);
    const recorded = new Map(run.steps.map((s) => [s.path, s]));
    const log: SimLog = {
      executed: new Map(),
      notComparable: new Set(),
      unverified: new Map(),
      types: new Map(),
      abortPath: null,
    };
    const env = simulationEnv(def, run, options, simulatedEffects(recorded, log), stepEffects);
    const result = await runGraph(env, graph, { prefix: "" });
    env.halted = true;
    return {
      verdict: result.verdict,
      state: result.state,
      base: env.base,
      ...(env.abort ? { abort: env.abort } : {}),
      ...log,
    };
  };

function simulationEnv(
  def: WorkflowDefinition,
  run: RecordedRun,
  options: DryRunOptions,
  effects: DriverEffects,
  stepEffects: StepEffects,
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
    stepEffects,
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
      log.types.set(path, node.type);
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
  if (RECOMPUTED_STEP_TYPES.has(node.type)) {
    // Production would resolve the secrets; the dry run has none, so it cannot know the value.
    if (collectReferences(node.config ?? {}).secrets.length > 0) {
      log.notComparable.add(path);
      return recordedOutcome(recorded.get(path), node) ?? placeholder();
    }
    return evaluatePureStep(env, path, node, ctx);
  }
  const body = (node.config as { body?: unknown } | undefined)?.body;
  if (node.type === "loop" && body) {
    const begun = beginLoop(env, node, ctx);
    if ("error" in begun) return { kind: "failed", error: begun.error };
    return runLoopIterations(env, scope, path, node, ctx, begun);
  }
  if (SIDE_EFFECT_STEP_TYPES.has(node.type))
    return servedFromRecording(env, path, node, ctx, recorded.get(path), log);
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

/**
 * A side-effecting step: the recording at this path when the step resolves the same config the
 * original attempt ran with; otherwise `unverified`, failed with class `unverified` so that only
 * an error or `continue` edge leads on (a default edge skips its branch). Never executed.
 */
function servedFromRecording(
  env: DriverEnv,
  path: string,
  node: DriverNode,
  ctx: TemplateContext,
  rec: RecordedStep | undefined,
  log: SimLog,
): StepOutcome {
  if (!rec || rec.status === "skipped" || rec.status === "cancelled")
    return unverified(log, path, "The original run did not run it: no recording to serve");
  if (rec.stepType !== node.type)
    return unverified(log, path, `The step's type changed (${rec.stepType} → ${node.type})`);
  // Secrets resolve to the redaction labels the recorded input carries instead of their values.
  const resolved = env.stepEffects.actions.resolveActionConfig(
    node.type as StepType,
    node.config ?? {},
    { ...ctx, secrets: (name) => `[REDACTED:${name}]` },
  );
  // Production fails the same way, before any effect: a real outcome, recomputed.
  if (!resolved.ok) return { kind: "failed", error: { message: resolved.message, class: "user" } };
  const after = JSON.parse(JSON.stringify(resolved.config ?? null)) as JsonValue;
  if (rec.input !== undefined && canonicalize(after) !== canonicalize(rec.input ?? null))
    return unverified(log, path, "Its resolved input changed: no recording to serve", {
      before: rec.input ?? null,
      after,
    });
  return (
    recordedOutcome(rec, node) ??
    unverified(log, path, `The original attempt did not finish (it was ${rec.status})`)
  );
}

function unverified(
  log: SimLog,
  path: string,
  reason: string,
  input?: { before: JsonValue | null; after: JsonValue | null },
): StepOutcome {
  log.unverified.set(path, { reason, ...input });
  log.notComparable.add(path);
  return { kind: "failed", error: { message: `Unverified: ${reason}`, class: "unverified" } };
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
  env: Pick<DriverEnv, "stepEffects">,
  node: DriverNode,
  ctx: TemplateContext,
): { error: { message: string; class: "user" } } | LoopStart {
  const start = env.stepEffects.bodies.resolveLoopStart(node.config, ctx);
  return "error" in start ? { error: { message: start.error, class: "user" } } : start;
}
