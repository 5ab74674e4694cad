import {
  abortRun,
  applyDecisions,
  applyOutcome,
  contextForStep,
  evaluateCondition,
  explainCondition,
  nextActions,
  type Condition,
  type RunState,
  type RunVerdict,
  type TemplateContext,
  type WorkflowGraph,
} from "@/lib/workflow";
import type { DriverEnv, DriverNode, Scope, SkipItem } from "./types";

/** What one planning round decided (both the per-step path and waves plan in rounds). */
export interface Round {
  state: RunState;
  /** Skipped and never-started (cancelled) steps, then `when` skips, to record in this order. */
  records: SkipItem[];
  /** Some `when` was false: re-plan before starting anything (skips may unblock or skip others). */
  whenSkipped: boolean;
  /** Ready steps whose `when` holds (not started yet; empty when `whenSkipped`). */
  toStart: string[];
  finished: RunVerdict | null;
}

/**
 * One planning round over the pure state machine: the abort (if any) applied, skips and cancels
 * decided, `when` conditions of ready steps evaluated. `inflight` steps are not recorded as
 * cancelled when the run ends (their durable work may still finish and record itself).
 */
export function planRound(
  env: Pick<DriverEnv, "base">,
  graph: WorkflowGraph<DriverNode>,
  state: RunState,
  scope: Scope,
  abort: DriverEnv["abort"],
  inflight: (stepId: string) => boolean,
): Round {
  if (abort && !state.abort)
    state = abortRun(state, abort.status === "timed_out" ? "timed_out" : "cancelled", abort.reason);
  const actions = nextActions(graph, state);
  state = applyDecisions(state, actions);
  const item = (stepId: string, status: SkipItem["status"], reason: string, detail?: string) => ({
    stepId,
    path: scope.prefix + stepId,
    stepType: graph.nodes.get(stepId)!.type,
    status,
    reason,
    detail,
  });
  const records: SkipItem[] = [
    ...actions.skip.map((s) => item(s.stepId, "skipped", s.reason, s.detail)),
    ...actions.cancel
      .filter((c) => !inflight(c.stepId))
      .map((c) => item(c.stepId, c.status, c.reason)),
  ];
  let whenSkipped = false;
  const toStart: string[] = [];
  if (!actions.finished) {
    for (const id of actions.start) {
      const node = graph.nodes.get(id)!.step;
      const whenCtx =
        node.when !== undefined ? stepContext(env, graph, state, scope, id) : undefined;
      if (node.when !== undefined && !evaluateWhen(node.when, whenCtx!)) {
        state = applyOutcome(state, id, { kind: "skipped", reason: "when_false" });
        records.push(item(id, "skipped", "when_false", explainWhen(node.when, whenCtx!)));
        whenSkipped = true;
      } else {
        toStart.push(id);
      }
    }
  }
  return {
    state,
    records,
    whenSkipped,
    toStart: whenSkipped ? [] : toStart,
    finished: actions.finished,
  };
}

export function stepContext(
  env: Pick<DriverEnv, "base">,
  graph: WorkflowGraph<DriverNode>,
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

/** The skip detail with the operands that made `when` false (`input.n is 2, needs > 5`). */
function explainWhen(when: unknown, ctx: TemplateContext): string {
  try {
    const why = explainCondition(when as Condition, ctx);
    return why ? `its \`when\` condition is false: ${why}` : "its `when` condition is false";
  } catch (e) {
    return `its \`when\` condition could not be evaluated: ${(e as Error).message}`;
  }
}

function evaluateWhen(when: unknown, ctx: TemplateContext): boolean {
  try {
    return evaluateCondition(when as Condition, ctx);
  } catch {
    // A `when` that cannot be evaluated (e.g. a missing path) counts as false: the step is skipped.
    return false;
  }
}
