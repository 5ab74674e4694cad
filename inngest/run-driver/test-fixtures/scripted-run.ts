/**
 * Test fixture, not production source: scripted runs through production's own driver
 * (`runGraph`: the same planner, join rules, `when` evaluation and loop orchestration as a real
 * run), for the graph fixture table (../graph.fixtures.test.ts). Only the effects are scripted (a
 * `DriverEffects` stand-in for the step bodies); the graph walk is the real one, so no rule is
 * written twice here. Step outcomes come from a script; unscripted `transform`, `condition` and
 * `return` steps run their real handlers (templates resolved, config parsed), loops with a body
 * run their iterations through `runGraph`, every other step completes on its primary port with
 * `data: null`. Nothing durable, no database, no network: `env.step` throws if reached.
 * Deterministic: effects settle at once, so steps complete in the order they started.
 */
import {
  buildRunnableGraph,
  type RunVerdict,
  type StepOutcome,
  type WorkflowDefinition,
} from "@/lib/workflow";
import type { GraphSource } from "@/lib/workflow/graph";
import { isPlainObject } from "@/lib/workflow/json";
import { beginLoop, evaluatePureStep, noDurableSteps } from "../replay";
import { stepEffects } from "../../functions/step-effects";
import { countAttempt } from "../execute-step";
import { loopIterationCount, runLoopIterations } from "../loop-iterations";
import { runGraph } from "../run-graph";
import { Semaphore } from "../semaphore";
import type { DriverEffects, DriverEnv, DriverNode, Scope } from "../types";

/**
 * A scripted outcome: a port name (`"success"`, `"false"`, `"rejected"`, …), `"fail"`, `"cancel"`,
 * an object `{ port?, data?, fail?, cancel? }`, or for a loop `{ iterations: [ {stepId: outcome}, … ] }`
 * (one entry per item; its length sets the number of items when the items are not literal).
 */
export type ScriptedOutcome =
  | string
  | {
      readonly port?: string;
      readonly data?: unknown;
      readonly fail?: string | true;
      readonly cancel?: true;
    }
  | { readonly iterations: ReadonlyArray<Readonly<Record<string, ScriptedOutcome>>> };

export type Script = Readonly<Record<string, ScriptedOutcome>>;

export interface SimulateOptions {
  readonly input?: Record<string, unknown>;
  readonly vars?: Record<string, unknown>;
  readonly trigger?: unknown;
  /** Overrides constraints.maxParallel. */
  readonly maxParallel?: number;
}

export interface SimulationResult {
  readonly status: RunVerdict["status"];
  readonly verdict: RunVerdict;
  /** Steps that started, in start order; loop body steps as `loop[index].step`. */
  readonly executed: string[];
  readonly skipped: string[];
  readonly cancelled: string[];
  readonly failed: string[];
  /** The return value, if a return step ended the run. */
  readonly output: unknown;
  /** Most top-level steps running at once. */
  readonly peakParallel: number;
}

interface SimStep {
  readonly id: string;
  readonly type: string;
  readonly config?: unknown;
  readonly when?: unknown;
}

type SimSource = GraphSource<SimStep> & { readonly variables?: Record<string, unknown> };

interface SimLog {
  executed: string[];
  skipped: string[];
  cancelled: string[];
  failed: string[];
  running: number;
  peak: number;
  /** Scripts by scope prefix: "" is the top level, `loop[2].` one iteration. */
  scripts: Map<string, Script>;
  /** Per scope, the promise of the step started last: outcomes are delivered in start order. */
  chains: Map<string, Promise<unknown>>;
  /** Paths whose scope ended while they were in flight (recorded as cancelled). */
  abandoned: Set<string>;
}

export async function simulateRun(
  definition: SimSource,
  script: Script = {},
  options: SimulateOptions = {},
): Promise<SimulationResult> {
  const maxParallel = options.maxParallel ?? definition.constraints?.maxParallel ?? 10;
  const graph = buildRunnableGraph<DriverNode>({
    steps: definition.steps as DriverNode[],
    edges: definition.edges,
    constraints: { maxParallel },
  });
  const log: SimLog = {
    executed: [],
    skipped: [],
    cancelled: [],
    failed: [],
    running: 0,
    peak: 0,
    scripts: new Map([["", script]]),
    chains: new Map(),
    abandoned: new Set(),
  };
  const env = scriptedEnv(definition, options, maxParallel, scriptedEffects(log));
  const result = await runGraph(env, graph, { prefix: "" });
  env.halted = true;
  return {
    status: result.verdict.status,
    verdict: result.verdict,
    executed: log.executed,
    skipped: log.skipped,
    cancelled: log.cancelled,
    failed: log.failed,
    output: result.verdict.output ?? null,
    peakParallel: log.peak,
  };
}

function scriptedEnv(
  definition: SimSource,
  options: SimulateOptions,
  maxParallel: number,
  effects: DriverEffects,
): DriverEnv {
  const deadline = Date.now() + 3_600_000;
  const constraints = { maxParallel, maxSteps: 1_000_000, timeoutMs: 3_600_000 };
  const def = { ...definition, constraints } as unknown as WorkflowDefinition;
  const runId = "run_simulated";
  const workflowId = "wf_simulated";
  return {
    step: noDurableSteps("simulation"),
    plan: {
      runId,
      workspaceId: "simulated",
      workflowId,
      rootRunId: runId,
      parentRunId: null,
      version: "simulated",
      hash: "",
      definition: def as unknown as Record<string, unknown>,
      input: options.input ?? {},
      trigger: options.trigger ?? null,
      triggerType: "simulation",
      initiatorUserId: null,
      startedAt: new Date().toISOString(),
      deadlineAt: new Date(deadline).toISOString(),
      seed: null,
    },
    definition: def,
    base: {
      input: options.input ?? {},
      vars: options.vars ?? definition.variables ?? {},
      trigger: options.trigger,
      run: { id: runId, workflowId },
    },
    slots: new Semaphore(maxParallel),
    attempts: 0,
    maxAttempts: constraints.maxSteps,
    deadline,
    halted: false,
    danglingWaits: 0,
    active: 0,
    waiting: 0,
    effects,
    stepEffects,
  };
}

function scriptedEffects(log: SimLog): DriverEffects {
  return {
    execute(env, scope, node, ctx) {
      const path = scope.prefix + node.id;
      if (env.halted) return Promise.resolve({ kind: "cancelled", reason: "run_ended" });
      log.executed.push(path);
      const top = scope.prefix === "";
      if (top) log.peak = Math.max(log.peak, ++log.running);
      countAttempt(env, path);
      // FIFO within a scope: a step's outcome is delivered after the outcomes of the steps that
      // started before it in the same graph, whatever each one's computation costs.
      const previous = log.chains.get(scope.prefix) ?? Promise.resolve();
      const delivered = outcomeFor(env, scope, path, node, ctx, log).then(async (outcome) => {
        await previous;
        if (top) log.running--;
        if (!log.abandoned.has(path)) {
          if (outcome.kind === "failed") log.failed.push(path);
          if (outcome.kind === "cancelled") log.cancelled.push(path);
        }
        return outcome;
      });
      log.chains.set(
        scope.prefix,
        delivered.then(
          () => undefined,
          () => undefined,
        ),
      );
      return delivered;
    },
    async recordSkips(_env, _scope, _round, items) {
      for (const item of items)
        (item.status === "skipped" ? log.skipped : log.cancelled).push(item.path);
    },
    abandon(_env, scope, stepIds) {
      for (const id of stepIds) {
        const path = scope.prefix + id;
        log.abandoned.add(path);
        log.cancelled.push(path);
      }
    },
  };
}

async function outcomeFor(
  env: DriverEnv,
  scope: Scope,
  path: string,
  node: DriverNode,
  ctx: Parameters<DriverEffects["execute"]>[3],
  log: SimLog,
): Promise<StepOutcome> {
  const script = log.scripts.get(scope.prefix) ?? {};
  const scripted = Object.prototype.hasOwnProperty.call(script, node.id)
    ? script[node.id]
    : undefined;
  const body = isPlainObject(node.config) ? node.config.body : undefined;
  if (node.type === "loop" && !isFlatOutcome(scripted)) {
    const iterations =
      isPlainObject(scripted) && "iterations" in scripted ? scripted.iterations : undefined;
    if (!body) {
      const n = iterations?.length ?? 0;
      return {
        kind: "completed",
        port: "done",
        output: envelope(
          "loop",
          Array.from({ length: n }, () => null),
        ),
      };
    }
    let begun = beginLoop(env, node, ctx);
    if ("error" in begun) {
      // Items that are not literal (e.g. an upstream output the script left null): the script's
      // iteration count stands in for them.
      if (!iterations) return { kind: "failed", error: begun.error };
      begun = {
        items: iterations.map((_, i) => i),
        concurrency: 1,
        workflow: null,
        version: null,
        input: null,
        batchSize: null,
      };
    }
    for (let i = 0; i < loopIterationCount(begun); i++)
      log.scripts.set(`${path}[${i}].`, iterations?.[i] ?? {});
    return runLoopIterations(env, scope, path, node, ctx, begun);
  }
  if (scripted !== undefined) return fromScript(node.type, scripted as FlatOutcome);
  if (node.type === "transform" || node.type === "condition" || node.type === "return")
    return evaluatePureStep(env, path, node, ctx);
  return { kind: "completed", output: envelope(node.type, null) };
}

type FlatOutcome = Exclude<ScriptedOutcome, { iterations: unknown }>;

function isFlatOutcome(value: ScriptedOutcome | undefined): value is FlatOutcome {
  return value !== undefined && !(isPlainObject(value) && "iterations" in value);
}

function fromScript(type: string, scripted: FlatOutcome): StepOutcome {
  if (scripted === "fail") return { kind: "failed", error: { message: "scripted failure" } };
  if (scripted === "cancel") return { kind: "cancelled", reason: "scripted" };
  if (typeof scripted === "string")
    return {
      kind: "completed",
      port: scripted,
      output: envelope(type, scripted === "true" ? true : scripted === "false" ? false : null),
    };
  if (scripted.cancel) return { kind: "cancelled", reason: "scripted" };
  if (scripted.fail !== undefined)
    return {
      kind: "failed",
      error: { message: scripted.fail === true ? "scripted failure" : scripted.fail },
    };
  return {
    kind: "completed",
    ...(scripted.port !== undefined ? { port: scripted.port } : {}),
    output: envelope(type, scripted.data ?? null),
  };
}

function envelope(type: string, data: unknown) {
  return { type, data, meta: {} };
}
