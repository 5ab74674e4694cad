import type { GetStepTools, StepOptionsOrId } from "inngest";
import type { PlanId } from "@/lib/quotas/plans";
import type { RunPlan } from "@/server/services/run-state/run-plan";
import type {
  LoopContext,
  StepContextEntry,
  StepOutcome,
  TemplateContext,
  WorkflowDefinition,
} from "@/lib/workflow";
import type { inngest } from "../client";
import type { Semaphore } from "./semaphore";

export type StepTools = GetStepTools<typeof inngest>;

/** Run-wide state of one orchestration (rebuilt identically on every durable replay). */
export interface DriverEnv {
  step: StepTools;
  plan: RunPlan;
  definition: WorkflowDefinition;
  /** input, vars, run, trigger — the parts of the template context every step shares. */
  base: TemplateContext;
  slots: Semaphore;
  /** Step attempts started so far (constraints.maxSteps). */
  attempts: number;
  maxAttempts: number;
  /** Set when the plan's "steps per run" quota, not the definition's maxSteps, is maxAttempts. */
  stepsQuota?: { limit: number; plan?: PlanId };
  deadline: number;
  /** Set when the run must stop early (max steps, deadline); checked between steps. */
  abort?: { status: "failed" | "timed_out" | "cancelled"; reason: string; message: string };
  /** The top-level graph finished: dangling step chains must not create new durable steps. */
  halted: boolean;
  /** Durable waits superseded by a look-back: the execution must be stopped when the run ends. */
  danglingWaits: number;
  /** Step chains in flight across the run (loop iterations included). */
  active: number;
  /** Waiting steps (approval, delay, event wait) in flight. */
  waiting: number;
  /**
   * Some step of this run was tagged race-mode (steps ran alongside each other): every later
   * step is tagged too (see `sid`). Rebuilt identically on replay, like `active`.
   */
  raced?: boolean;
  /**
   * What running a step and recording skips does. Absent = the durable effects of production runs
   * (`durableEffects` in run-graph.ts); the proposal dry run plugs in simulated ones so it drives
   * graphs with the same `runGraph` (loop iterations included, they recurse through it).
   */
  effects?: DriverEffects;
  /**
   * Step execution (server/services/step-execution) as the driver may call it: built once by
   * whoever starts the driver (inngest/functions/step-effects.ts) and handed down in this env.
   */
  stepEffects: StepEffects;
}

// Type-only views of step execution's modules: the driver never imports their values.
type Registry = typeof import("@/server/services/step-execution/actions/registry");
type ActionTypes = typeof import("@/server/services/step-execution/actions/types");
type Attempt = typeof import("@/server/services/step-execution/action-attempt");
type Runtime = typeof import("@/server/services/step-execution/runtime");
type ApprovalBodies = typeof import("@/server/services/step-execution/approval-bodies");
type DelayBodies = typeof import("@/server/services/step-execution/delay-bodies");
type FinishBodies = typeof import("@/server/services/step-execution/finish-bodies");
type LoopBodies = typeof import("@/server/services/step-execution/loop-bodies");
type RecordBodies = typeof import("@/server/services/step-execution/record-bodies");
type ChildBodies = typeof import("@/server/services/step-execution/subworkflow-bodies");
type TaskBodies = typeof import("@/server/services/step-execution/task-bodies");
type WaitBodies = typeof import("@/server/services/step-execution/wait-bodies");

/**
 * Everything the driver asks of step execution, one object: the driver is orchestration, and each
 * call into step execution goes down through it (eslint: run-driver imports server/ as types only).
 * `DriverEffects` decides what running a whole step means (durable or simulated); these are the
 * step-execution calls the durable path and pure evaluation make.
 */
export interface StepEffects {
  /** Action steps: the catalog's handler, templates resolved, one recorded attempt. */
  actions: Pick<Registry, "handlerFor"> &
    Pick<ActionTypes, "StepFailure"> &
    Pick<Attempt, "resolveActionConfig" | "runActionAttempt">;
  /** The bodies of durable steps (one call each), and a loop's items resolved without recording. */
  bodies: Pick<DelayBodies, "beginDelayBody" | "endDelayBody"> &
    Pick<WaitBodies, "beginWaitBody" | "endWaitBody" | "lookbackWaitBody"> &
    Pick<ChildBodies, "startChildBody" | "checkChildBody" | "endChildBody"> &
    Pick<LoopBodies, "beginLoopBody" | "endLoopBody" | "resolveLoopStart"> &
    Pick<ApprovalBodies, "openApprovalBody" | "checkApprovalBody" | "closeApprovalBody"> &
    Pick<TaskBodies, "openTaskBody" | "checkTaskBody" | "closeTaskBody"> &
    Pick<RecordBodies, "recordSkipsBody" | "recordWaveBody"> &
    Pick<FinishBodies, "finishRunBody">;
  /** The database handle, clock and logger of a wave's body. */
  stepRuntime: Runtime["stepRuntime"];
}

/** A step as the driver hands it to `execute` (top level or loop body). */
export interface DriverNode {
  id: string;
  type: string;
  when?: unknown;
  config?: unknown;
  retry?: unknown;
  timeoutMs?: number;
  name?: string;
}

/** A skipped or never-started step, as recorded in one batch per planning round. */
export interface SkipItem {
  stepId: string;
  /** `scope.prefix + stepId`. */
  path: string;
  stepType: string;
  status: "skipped" | "cancelled";
  reason: string;
  detail?: string;
}

/** The side of the driver that touches the world; `runGraph` itself only plans. */
export interface DriverEffects {
  /**
   * Runs one started step to its final outcome (retries included). `counted`: a wave already
   * counted its first attempt (constraints.maxSteps) when it started it.
   */
  execute(
    env: DriverEnv,
    scope: Scope,
    node: DriverNode,
    ctx: TemplateContext,
    opts?: { counted?: boolean },
  ): Promise<StepOutcome>;
  /** Records one planning round's skips; `round` numbers the rounds of this graph (stable ids). */
  recordSkips(env: DriverEnv, scope: Scope, round: number, items: SkipItem[]): Promise<void>;
  /**
   * The graph ended with these steps still in flight; their outcomes will not be applied. In
   * production their durable work may still finish (the run's end cancels what is left), so there
   * is nothing to do; the scripted simulation records them as cancelled.
   */
  abandon?(env: DriverEnv, scope: Scope, stepIds: string[]): void;
  /**
   * Runs a wave's body in one durable step numbered `n` within the scope (waves.ts). Absent: pure
   * steps run one by one through `execute` (the simulations, which have nothing to batch).
   */
  wave?<T>(env: DriverEnv, scope: Scope, n: number, body: () => Promise<T>): Promise<T>;
}

/**
 * Options for a durable step. A step that may run alongside others is tagged race-mode, so the
 * executor resumes the run after each completion (independent branches advance independently).
 * A step of a run that never ran steps side by side is left untagged: the SDK then runs it inline
 * in the same request, one round trip instead of two.
 *
 * Once any step was tagged, every later step is tagged too ("sticky"). Real Inngest (1.43) keeps
 * a run's pending-steps set by replacing it with the ids of each response that plans several
 * steps — discoveries racing after parallel completions re-report siblings still in flight, which
 * puts finished steps back into that set for good — and it continues a run after an untagged step
 * only when that set is empty: an untagged step after a join hung the run. Several of those racing
 * discoveries also each ran a lone untagged step inline (its effect repeated). A tagged step is
 * only ever planned, once per id, and continues the run whatever the set holds. The embedded
 * executor's default scheduling (one discovery per run, exact pending bookkeeping) has neither
 * problem, so its runs keep running lone steps inline after a join (`plan.inlineAfterParallel`,
 * fixed per run); docs/engines.md.
 */
export function sid(env: DriverEnv, id: string, concurrent = false): StepOptionsOrId {
  const now = concurrent || env.active > 1;
  if (legacyTagging.on || env.plan.inlineAfterParallel)
    return now ? { id, parallelMode: "race" } : id;
  if (now) env.raced = true;
  return env.raced ? { id, parallelMode: "race" } : id;
}

/**
 * Test seam: the tagging rule before issue 24 (only steps running alongside others tagged), so a
 * test can show that the engines it runs on catch the hang and the repeated effect it caused.
 */
export const legacyTagging = { on: false };

/** Where a graph runs: the top level, or one loop iteration. */
export interface Scope {
  /** Prefix of step paths (`each[2].` inside a loop). */
  prefix: string;
  loop?: LoopContext;
  /** Outer steps visible inside a loop body. */
  outer?: Record<string, StepContextEntry>;
}
