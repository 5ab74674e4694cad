/**
 * Drives the engine state machine to the end with scripted step outcomes — for tests, the editor's
 * "what would run" preview and proposal dry runs. Deterministic: steps complete in the order they
 * started (FIFO), loop iterations run one after another in item order.
 *
 * Unscripted steps behave plausibly: `transform`/`return` resolve their value, `condition`
 * evaluates its condition, `loop` runs its body once per item, `approval` approves, everything
 * else completes on its primary port with `data: null`. `when` is evaluated for real.
 */
import { evaluateCondition, type Condition } from "./conditions";
import {
  applyDecisions,
  applyOutcome,
  contextForStep,
  initialState,
  iterationValue,
  loopOutcome,
  markStarted,
  nextActions,
  type IterationResult,
  type RunState,
  type RunVerdict,
  type StepOutcome,
} from "./engine";
import { buildRunnableGraph, type GraphSource, type WorkflowGraph } from "./graph";
import { isPlainObject } from "./json";
import { resolveTemplate, type TemplateContext } from "./templates";

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
  /** Most steps running at once (top level). */
  readonly peakParallel: number;
}

interface SimStep {
  readonly id: string;
  readonly type: string;
  readonly config?: unknown;
  readonly when?: unknown;
}

type SimSource = GraphSource<SimStep> & { readonly variables?: Record<string, unknown> };

const MAX_SIM_ROUNDS = 100_000;

export function simulate(
  definition: SimSource,
  script: Script = {},
  options: SimulateOptions = {},
): SimulationResult {
  const graph = buildRunnableGraph({
    ...definition,
    constraints: { maxParallel: options.maxParallel ?? definition.constraints?.maxParallel },
  });
  const base: TemplateContext = {
    input: options.input ?? {},
    vars: options.vars ?? definition.variables ?? {},
    trigger: options.trigger,
    run: { id: "run_simulated", workflowId: "wf_simulated" },
  };
  const run = runGraph(graph, script, base, "");
  return { ...run.result, output: run.result.verdict.output ?? null };
}

interface GraphRun {
  readonly result: Omit<SimulationResult, "output">;
  readonly state: RunState;
}

function runGraph(
  graph: WorkflowGraph<SimStep>,
  script: Script,
  base: TemplateContext,
  prefix: string,
): GraphRun {
  let state = initialState(graph);
  const log = {
    executed: [] as string[],
    skipped: [] as string[],
    cancelled: [] as string[],
    failed: [] as string[],
  };
  const running: string[] = [];
  let peak = 0;
  for (let round = 0; round < MAX_SIM_ROUNDS; round++) {
    const actions = nextActions(graph, state);
    state = applyDecisions(state, actions);
    actions.skip.forEach((s) => log.skipped.push(prefix + s.stepId));
    for (const c of actions.cancel) {
      (c.status === "skipped" ? log.skipped : log.cancelled).push(prefix + c.stepId);
      if (running.includes(c.stepId)) running.splice(running.indexOf(c.stepId), 1);
    }
    if (actions.finished) {
      return {
        result: {
          status: actions.finished.status,
          verdict: actions.finished,
          ...log,
          peakParallel: peak,
        },
        state,
      };
    }
    let changed = actions.skip.length > 0;
    for (const id of actions.start) {
      const ctx = contextForStep(graph, state, id, base);
      const when = graph.nodes.get(id)!.step.when;
      if (when !== undefined && !evaluateCondition(when as Condition, ctx)) {
        state = applyOutcome(state, id, { kind: "skipped", reason: "when_false" });
        log.skipped.push(prefix + id);
        changed = true;
        continue;
      }
      state = markStarted(state, id);
      running.push(id);
      log.executed.push(prefix + id);
    }
    peak = Math.max(peak, running.length);
    const next = running.shift();
    if (next === undefined) {
      if (changed) continue;
      throw new Error("simulate: nothing can run and the run is not finished");
    }
    const outcome = outcomeFor(graph, state, next, script, base, prefix, log);
    state = applyOutcome(state, next, outcome);
    if (outcome.kind === "failed") log.failed.push(prefix + next);
    if (outcome.kind === "cancelled") log.cancelled.push(prefix + next);
  }
  throw new Error("simulate: too many rounds");
}

function outcomeFor(
  graph: WorkflowGraph<SimStep>,
  state: RunState,
  id: string,
  script: Script,
  base: TemplateContext,
  prefix: string,
  log: { executed: string[]; skipped: string[]; cancelled: string[]; failed: string[] },
): StepOutcome {
  const step = graph.nodes.get(id)!.step;
  const scripted = Object.prototype.hasOwnProperty.call(script, id) ? script[id] : undefined;
  const ctx = contextForStep(graph, state, id, base);
  if (step.type === "loop" && !isFlatOutcome(scripted))
    return runLoop(step, scripted, ctx, prefix + id, log, graph.maxParallel);
  if (scripted !== undefined) return fromScript(step.type, scripted as FlatOutcome);
  return defaultOutcome(step, ctx);
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

function defaultOutcome(step: SimStep, ctx: TemplateContext): StepOutcome {
  const config = isPlainObject(step.config) ? step.config : {};
  switch (step.type) {
    case "transform":
    case "return":
      return {
        kind: "completed",
        output: envelope(step.type, resolveTemplate(config.value ?? null, ctx) ?? null),
      };
    case "condition": {
      const result = evaluateCondition(config.condition as Condition, ctx);
      return { kind: "completed", port: String(result), output: envelope(step.type, result) };
    }
    default:
      return { kind: "completed", output: envelope(step.type, null) };
  }
}

function runLoop(
  step: SimStep,
  scripted: ScriptedOutcome | undefined,
  ctx: TemplateContext,
  label: string,
  log: { executed: string[]; skipped: string[]; cancelled: string[]; failed: string[] },
  maxParallel: number,
): StepOutcome {
  const config = isPlainObject(step.config) ? step.config : {};
  const body = isPlainObject(config.body) ? (config.body as unknown as GraphSource<SimStep>) : null;
  const iterations =
    isPlainObject(scripted) && "iterations" in scripted ? scripted.iterations : undefined;
  const resolved = resolveTemplate(config.items, ctx);
  const items: unknown[] = Array.isArray(resolved)
    ? resolved
    : Array.from({ length: iterations?.length ?? 0 }, (_, i) => i);
  if (!body)
    return {
      kind: "completed",
      port: "done",
      output: envelope(
        "loop",
        items.map(() => null),
      ),
    };
  // Body steps count against the run's maxParallel like any other step; iterations run one by one here.
  const graph = buildRunnableGraph<SimStep>({
    steps: body.steps,
    edges: body.edges,
    constraints: { maxParallel },
  });
  const results: IterationResult[] = [];
  for (let index = 0; index < items.length; index++) {
    const run = runGraph(
      graph,
      iterations?.[index] ?? {},
      { ...ctx, loop: { item: items[index], index } },
      `${label}[${index}].`,
    );
    for (const key of ["executed", "skipped", "cancelled", "failed"] as const)
      log[key].push(...run.result[key]);
    results.push({
      index,
      verdict: run.result.verdict,
      value: iterationValue(graph, run.state, run.result.verdict),
    });
    if (run.result.verdict.status !== "completed") break; // fail fast: no new iterations after a failure
  }
  return loopOutcome(results);
}

function envelope(
  type: string,
  data: unknown,
): { type: string; data: unknown; meta: Record<string, unknown> } {
  return { type, data, meta: {} };
}
