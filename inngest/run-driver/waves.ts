/**
 * Waves (engine version 2): at a planning round, the ready pure steps (pure-step.ts) are evaluated
 * in-process and the graph re-planned, round after round, while pure steps keep becoming ready —
 * a chain of 100 transforms is one wave. Everything a wave decides (its steps' outcomes, skips,
 * `when` skips, cancels) is recorded by ONE durable step in one transaction, and the outcomes are
 * its memoized result, so a replay applies them without evaluating anything again.
 *
 * A wave is planned by `planWave`, a deterministic function of a snapshot taken when the wave
 * begins (state, attempt count, abort) and of an evaluator. The durable step's body runs it with
 * the real evaluator and records the rows; the driver then runs it again over the memoized
 * outcomes, so the body and every replay reach the same state. Non-pure steps that become ready
 * in the wave are started (and counted, in the per-step path's order) by the wave and launched by
 * the driver after it; if the run ends later in the same wave they are recorded as cancelled
 * without having run.
 */
import "server-only";
import {
  applyOutcome,
  markStarted,
  type FailureClass,
  type RunState,
  type RunVerdict,
  type StepOutcome,
  type TemplateContext,
  type WorkflowGraph,
} from "@/lib/workflow";
import type { WaveRecord } from "@/server/services/run-state/wave-records";
import { countAttempt } from "./execute-step";
import type { RunEnded } from "@/server/services/step-execution/finish-bodies";
import { planRound, stepContext } from "./planning";
import { evaluatePureStep, isWaveStep, type PureStepResult } from "./pure-step";
import type { DriverEnv, DriverNode, Scope, SkipItem } from "./types";

type Graph = WorkflowGraph<DriverNode>;

/** The driver's state when a wave begins; the wave is a function of it. */
export interface WaveInput {
  state: RunState;
  attempts: number;
  abort: DriverEnv["abort"];
  /** Steps running in durable steps of their own (never recorded as cancelled by the wave). */
  inflight: ReadonlySet<string>;
}

/** A step the wave started. */
export interface WaveStep {
  id: string;
  path: string;
  node: DriverNode;
  ctx: TemplateContext;
}

export interface WavePlan {
  state: RunState;
  attempts: number;
  abort: DriverEnv["abort"];
  /** What to record, in order: skips and cancels, and the pure steps with their outcomes. */
  entries: (
    { kind: "skip"; item: SkipItem } | { kind: "step"; step: WaveStep; outcome: StepOutcome }
  )[];
  /** Non-pure steps started (and counted) by the wave: the driver launches them after it. */
  launches: WaveStep[];
  finished: RunVerdict | null;
  /** The evaluator had no outcome for a pure step: the wave stopped there. */
  missing: boolean;
}

/** The memoized result of a wave's durable step. */
export interface WaveMemo {
  outcomes: [string, StepOutcome][];
  /** The wave ended the run (top level): its finish was written with the wave's rows. */
  ended?: RunEnded;
}

type Evaluate = (step: WaveStep) => Promise<StepOutcome | undefined>;

/** Plans one wave (see the module comment). Deterministic in its input and the evaluator. */
export async function planWave(
  env: DriverEnv,
  graph: Graph,
  scope: Scope,
  input: WaveInput,
  evaluate: Evaluate,
): Promise<WavePlan> {
  // countAttempt reads and bumps the counter and sets the abort: on a copy, not the live env.
  const counter: DriverEnv = { ...env, attempts: input.attempts, abort: input.abort };
  let state = input.state;
  const entries: WavePlan["entries"] = [];
  const launches: WaveStep[] = [];
  const plan = (finished: RunVerdict | null, missing = false): WavePlan => ({
    state,
    attempts: counter.attempts,
    abort: counter.abort,
    entries,
    // A launch the run's end cancelled within the wave never runs (recorded as cancelled).
    launches: launches.filter((l) => state.steps[l.id]?.status === "running"),
    finished,
    missing,
  });
  for (;;) {
    const round = planRound(env, graph, state, scope, counter.abort, (id) =>
      input.inflight.has(id),
    );
    state = round.state;
    for (const item of round.records) entries.push({ kind: "skip", item });
    if (round.finished) return plan(round.finished);
    if (round.whenSkipped) continue;
    // Started in order, each seeing the ones before it as running (as the per-step path does).
    const settled: { step: WaveStep; outcome?: StepOutcome }[] = [];
    for (const id of round.toStart) {
      state = markStarted(state, id);
      const node = graph.nodes.get(id)!.step;
      const step = {
        id,
        path: scope.prefix + id,
        node,
        ctx: stepContext(env, graph, state, scope, id),
      };
      if (!countAttempt(counter, step.path)) {
        settled.push({
          step,
          outcome: { kind: "failed", error: { message: counter.abort!.message } },
        });
      } else if (isWaveStep(node)) {
        settled.push({ step });
      } else {
        launches.push(step);
      }
    }
    // A round that settles nothing ends the wave: what is left waits for durable steps.
    if (!settled.length) return plan(null);
    for (const s of settled) {
      if (s.outcome) continue;
      s.outcome = await evaluate(s.step);
      if (!s.outcome) return plan(null, true);
      entries.push({ kind: "step", step: s.step, outcome: s.outcome });
    }
    for (const s of settled) state = applyOutcome(state, s.step.id, s.outcome!);
  }
}

/** Whether a wave has anything to evaluate or record (else the driver needs no durable step). */
export function waveNeedsStep(probe: WavePlan): boolean {
  return probe.missing || probe.entries.length > 0;
}

/**
 * The body of a wave's durable step: plans the wave with the real evaluator, records its rows in
 * one transaction — or, when the wave ends the top-level graph, in the run's finish transaction —
 * and returns the outcomes to memoize.
 */
export async function waveBody(
  env: DriverEnv,
  graph: Graph,
  scope: Scope,
  input: WaveInput,
  finish?: { leftInFlight: number },
): Promise<WaveMemo> {
  const rt = await env.stepEffects.stepRuntime();
  const log = rt.log.child({ runId: env.plan.runId, wave: scope.prefix || "run" });
  const results = new Map<string, PureStepResult>();
  const wave = await planWave(env, graph, scope, input, async (step) => {
    const r = await evaluatePureStep(env, step.path, step.node, step.ctx, log);
    results.set(step.id, r);
    return r.outcome;
  });
  const rows = wave.entries.map((e): WaveRecord =>
    e.kind === "skip"
      ? { kind: "skip", ...e.item }
      : attemptRow(e.step, e.outcome, results.get(e.step.id)!.input),
  );
  const outcomes = wave.entries.flatMap((e) =>
    e.kind === "step" ? [[e.step.id, e.outcome] as [string, StepOutcome]] : [],
  );
  const run = { runId: env.plan.runId, workspaceId: env.plan.workspaceId };
  if (wave.finished && finish) {
    const ended = await env.stepEffects.bodies.finishRunBody({
      runId: env.plan.runId,
      verdict: verdictWithAbort(wave.finished, env.abort ?? wave.abort),
      state: wave.state,
      base: env.base,
      outputTemplate: env.definition.output,
      abort: env.abort ?? wave.abort,
      leftInFlight: finish.leftInFlight,
      wave: rows,
    });
    return { outcomes, ended };
  }
  await env.stepEffects.bodies.recordWaveBody(run, rows);
  await waveTestHooks.afterRecord?.(
    run.runId,
    wave.entries.map((e) => (e.kind === "step" ? e.step.path : e.item.path)),
  );
  return { outcomes };
}

/**
 * Test seam for the crash tests (test-fixtures/engine-crash-app.ts): awaited after a wave's rows
 * committed and before its result is memoized, the window a crash re-executes the wave from.
 */
export const waveTestHooks: {
  afterRecord?: (runId: string, paths: string[]) => Promise<void>;
} = {};

/** A run stopped by a failing abort (max steps, quota) ends failed, not cancelled. */
export function verdictWithAbort(verdict: RunVerdict, abort: DriverEnv["abort"]): RunVerdict {
  if (abort?.status === "failed" && verdict.reason === "aborted")
    return { ...verdict, status: "failed" };
  return verdict;
}

function attemptRow(step: WaveStep, outcome: StepOutcome, input: unknown): WaveRecord {
  const base = {
    kind: "attempt" as const,
    stepId: step.id,
    path: step.path,
    stepType: step.node.type,
    input,
  };
  if (outcome.kind === "completed")
    return {
      ...base,
      status: "completed",
      output: outcome.output,
      ...(outcome.port ? { port: outcome.port } : {}),
    };
  const error = (outcome.kind === "failed" ? outcome.error : undefined) as
    { message?: string; class?: FailureClass; details?: unknown } | undefined;
  return {
    ...base,
    status: "failed",
    error: {
      message: error?.message,
      ...(error?.details ? { details: error.details } : {}),
    },
    failureClass: error?.class,
  };
}
