import {
  abortRun,
  applyDecisions,
  applyOutcome,
  contextForStep,
  evaluateCondition,
  initialState,
  markStarted,
  nextActions,
  type Condition,
  type RunState,
  type RunVerdict,
  type StepOutcome,
  type TemplateContext,
  type WorkflowGraph,
} from "@/lib/workflow";
import { recordSkipsBody } from "./record-bodies";
import { executeStep } from "./execute-step";
import { sid, type EngineEffects, type EngineEnv, type EngineNode, type Scope } from "./types";

export interface GraphResult {
  verdict: RunVerdict;
  state: RunState;
  /** Steps still in flight when the graph halted (their durable work may still finish). */
  leftInFlight: number;
}

type Node = EngineNode;

/**
 * Production effects: each step runs through durable steps (`executeStep`), and each planning
 * round's skips are recorded in one durable step whose id is stable across replays.
 */
export const durableEffects: EngineEffects = {
  // A call, not a reference: execute-step imports this module back (loops), so the binding may
  // not be initialized yet when this object is built.
  execute: (env, scope, node, ctx) => executeStep(env, scope, node, ctx),
  async recordSkips(env, scope, round, items) {
    await env.step.run(sid(env, `${scope.prefix || "run"}~skip#${round}`), () =>
      recordSkipsBody({ runId: env.plan.runId, workspaceId: env.plan.workspaceId, items }),
    );
  },
};

/**
 * Drives one graph (the workflow, or one loop iteration) with the pure state machine: starts ready
 * steps, records skips, and reacts to each step outcome in completion order — `Promise.race` over
 * the steps in flight, which the durable executor replays deterministically (the memo stack is in
 * completion order and steps are tagged `parallelMode: race`). What a step does is `env.effects`
 * (durable in production, simulated in the proposal dry run); the planning here is shared.
 */
export async function runGraph(
  env: EngineEnv,
  graph: WorkflowGraph<Node>,
  scope: Scope,
  seed?: Record<string, StepOutcome>,
): Promise<GraphResult> {
  const effects = env.effects ?? durableEffects;
  let state = initialState(graph);
  if (seed) {
    for (const [id, outcome] of Object.entries(seed)) {
      if (!graph.nodes.has(id) || outcome.kind === "cancelled") continue;
      if (outcome.kind === "skipped") {
        state = applyOutcome(state, id, outcome);
      } else {
        state = applyOutcome(markStarted(state, id), id, outcome);
      }
    }
  }
  const inflight = new Map<string, Promise<{ id: string; outcome: StepOutcome }>>();
  let round = 0;
  for (;;) {
    if (env.abort && !state.abort)
      state = abortRun(
        state,
        env.abort.status === "timed_out" ? "timed_out" : "cancelled",
        env.abort.reason,
      );
    const actions = nextActions(graph, state);
    state = applyDecisions(state, actions);
    const notStarted = [
      ...actions.skip.map((s) => ({
        stepId: s.stepId,
        status: "skipped" as const,
        reason: s.reason,
        detail: s.detail,
      })),
      ...actions.cancel
        .filter((c) => !inflight.has(c.stepId))
        .map((c) => ({ stepId: c.stepId, status: c.status, reason: c.reason })),
    ];
    const whenSkips: { stepId: string; status: "skipped"; reason: string; detail: string }[] = [];
    const toStart: string[] = [];
    if (!actions.finished) {
      for (const id of actions.start) {
        const node = graph.nodes.get(id)!.step;
        if (
          node.when !== undefined &&
          !evaluateWhen(node.when, stepContext(env, graph, state, scope, id))
        ) {
          state = applyOutcome(state, id, { kind: "skipped", reason: "when_false" });
          whenSkips.push({
            stepId: id,
            status: "skipped",
            reason: "when_false",
            detail: "its `when` condition is false",
          });
        } else {
          toStart.push(id);
        }
      }
    }
    const records = [...notStarted, ...whenSkips];
    if (records.length && !env.halted) {
      round++;
      await effects.recordSkips(
        env,
        scope,
        round,
        records.map((r) => ({
          stepId: r.stepId,
          path: scope.prefix + r.stepId,
          stepType: graph.nodes.get(r.stepId)!.type,
          status: r.status,
          reason: r.reason,
          detail: "detail" in r ? (r.detail as string | undefined) : undefined,
        })),
      );
    }
    if (actions.finished) {
      if (inflight.size) effects.abandon?.(env, scope, [...inflight.keys()]);
      return {
        verdict: applyAbortOverride(env, actions.finished),
        state,
        leftInFlight: inflight.size,
      };
    }
    if (whenSkips.length) continue; // re-plan: skipped steps may unblock or skip others

    // Count the new chains before creating any durable step, so each sees whether it has company.
    env.active += toStart.length;
    for (const id of toStart) {
      state = markStarted(state, id);
      const ctx = stepContext(env, graph, state, scope, id);
      const node = graph.nodes.get(id)!.step;
      inflight.set(
        id,
        effects.execute(env, scope, node, ctx).then((outcome) => ({ id, outcome })),
      );
    }
    if (inflight.size === 0) {
      if (toStart.length === 0 && records.length === 0) {
        throw new Error(
          `The run made no progress (${scope.prefix || "top level"}): a bug in the scheduler`,
        );
      }
      continue;
    }
    const done = await Promise.race(inflight.values());
    inflight.delete(done.id);
    // The chain ended: a step that runs alone afterwards is no longer tagged race-mode (one
    // inline SDK request instead of two and a queue trip). Replays reach this point in the same
    // order (the memo stack is in completion order), so the tags are the same on every replay.
    env.active--;
    state = applyOutcome(state, done.id, done.outcome);
  }
}

function applyAbortOverride(env: EngineEnv, verdict: RunVerdict): RunVerdict {
  if (env.abort?.status === "failed" && verdict.reason === "aborted")
    return { ...verdict, status: "failed" };
  return verdict;
}

function stepContext(
  env: EngineEnv,
  graph: WorkflowGraph<Node>,
  state: RunState,
  scope: Scope,
  id: string,
): TemplateContext {
  return contextForStep(graph, state, id, {
    ...env.base,
    ...(scope.loop ? { loop: scope.loop } : {}),
    ...(scope.outer ? { steps: scope.outer } : {}),
  });
}

function evaluateWhen(when: unknown, ctx: TemplateContext): boolean {
  try {
    return evaluateCondition(when as Condition, ctx);
  } catch {
    // A `when` that cannot be evaluated (e.g. a missing path) counts as false: the step is skipped.
    return false;
  }
}
