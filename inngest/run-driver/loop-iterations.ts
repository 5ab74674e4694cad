/**
 * A loop's iterations (the loop step itself is begun and ended in execute-step.ts): each body
 * iteration is a graph driven by `runGraph`, a workflow loop's iteration a child run.
 */
import {
  buildRunnableGraph,
  getStepState,
  loopOutcome,
  iterationValue,
  type LoopContext,
  type IterationResult,
  type StepOutcome,
  type TemplateContext,
} from "@/lib/workflow";
import type { LoopStart } from "@/server/services/step-execution/loop-bodies";
import { runSubworkflow, type Node } from "./execute-step";
import { runGraph } from "./run-graph";
import type { DriverEnv, Scope } from "./types";

export type { LoopStart };

/**
 * Runs a loop's iterations and folds them into its outcome. Each body iteration goes through
 * `runGraph` with the same env, so its effects (durable or the dry run's simulated ones) apply.
 */
export async function runLoopIterations(
  env: DriverEnv,
  scope: Scope,
  path: string,
  node: Node,
  ctx: TemplateContext,
  begun: LoopStart,
): Promise<StepOutcome> {
  const config = node.config as { body?: { steps: unknown[]; edges?: unknown[] } };
  const bodyGraph = config.body
    ? buildRunnableGraph({
        steps: config.body.steps as never,
        edges: config.body.edges as never,
        constraints: { maxParallel: env.definition.constraints.maxParallel },
      })
    : null;
  const outer = { ...(scope.outer ?? {}), ...(ctx.steps ?? {}) };
  const results: IterationResult[] = [];
  const running = new Map<number, Promise<IterationResult & { state?: unknown }>>();
  const count = loopIterationCount(begun);
  // With a state, iterations run one at a time (resolveLoopStart), so `state` is always the value
  // the previous iteration left; it is rebuilt on replay from the memoized body outputs.
  let state = begun.state?.initial;
  let next = 0;
  let stop = false;
  while ((next < count && !stop) || running.size > 0) {
    while (!stop && next < count && running.size < begun.concurrency) {
      const index = next++;
      const loop = iterationLoopContext(begun, index, state);
      const iterScope: Scope = { prefix: `${path}[${index}].`, loop, outer };
      running.set(index, runIteration(env, iterScope, bodyGraph, begun, loop));
    }
    const done = await Promise.race(running.values());
    running.delete(done.index);
    if ("state" in done) state = done.state;
    results.push(done);
    // A failed or cancelled iteration stops new ones (running ones finish).
    if (done.verdict.status !== "completed") stop = true;
    if (env.halted) stop = true;
  }
  return loopOutcome(results, {
    items: begun.items.length,
    ...(begun.batchSize ? { batchSize: begun.batchSize, batches: count } : {}),
    ...(begun.state ? { state: state ?? null } : {}),
  });
}

/** Iterations a loop runs: one per item, or one per batch of `batchSize` items. */
export function loopIterationCount(begun: Pick<LoopStart, "items" | "batchSize">): number {
  return begun.batchSize ? Math.ceil(begun.items.length / begun.batchSize) : begun.items.length;
}

/** What iteration `index` sees under `loop.` (the list itself shared, never copied). */
function iterationLoopContext(begun: LoopStart, index: number, state: unknown): LoopContext {
  const base: LoopContext = begun.batchSize
    ? {
        index,
        batch: begun.items.slice(index * begun.batchSize, (index + 1) * begun.batchSize),
      }
    : { index, item: begun.items[index] };
  base.items = begun.items;
  if (begun.state) {
    base.hasState = true;
    base.state = state ?? null;
  }
  return base;
}

async function runIteration(
  env: DriverEnv,
  scope: Scope,
  bodyGraph: ReturnType<typeof buildRunnableGraph> | null,
  begun: LoopStart,
  loop: LoopContext,
): Promise<IterationResult & { state?: unknown }> {
  const { index } = loop;
  if (!bodyGraph) {
    // A workflow loop: each item (or batch) runs the workflow as a child run.
    const path = scope.prefix.slice(0, -1);
    const input =
      begun.input ?? (loop.batch ? { batch: loop.batch, index } : { item: loop.item, index });
    const outcome = await runSubworkflow(
      env,
      path,
      {
        runId: env.plan.runId,
        workspaceId: env.plan.workspaceId,
        stepId: path,
        path,
        stepType: "subworkflow",
        attempt: 1,
      },
      { ...env.base, loop },
      null,
      { workflow: begun.workflow!, version: begun.version, input },
    );
    const status =
      outcome.kind === "completed"
        ? "completed"
        : outcome.kind === "failed"
          ? "failed"
          : "cancelled";
    return {
      index,
      verdict: {
        status,
        reason: status === "completed" ? "all_steps_finished" : "unhandled_failure",
        unhandledFailures: [],
        returned: false,
      },
      value:
        outcome.kind === "completed"
          ? ((outcome.output as { data?: unknown })?.data ?? null)
          : null,
    };
  }
  const r = await runGraph(env, bodyGraph as never, scope);
  const result = {
    index,
    verdict: r.verdict,
    value: iterationValue(bodyGraph, r.state, r.verdict),
  };
  if (!begun.state) return result;
  // The stateFrom step's output data is the next state; skipped or failed, the state carries over.
  const from = getStepState(r.state, begun.state.from);
  return from.status === "completed"
    ? { ...result, state: (from.output as { data?: unknown } | null)?.data ?? null }
    : result;
}
