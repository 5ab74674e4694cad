/** What a running step sees: the template context from the run state, and loop iteration results. */
import type { WorkflowGraph } from "./graph";
import type { StepContextEntry, TemplateContext } from "./template-resolve";
import {
  envelopeData,
  getStepState,
  type RunState,
  type RunVerdict,
  type StepOutcome,
  type StepRunState,
} from "./run-semantics";
import { isEdgeTaken } from "./run-decisions";

// --- context for templates -------------------------------------------------------------------

/**
 * `lastOutput` for a step: the output envelope of the source, among its *taken* incoming edges,
 * that reached its outcome last (null when that source failed through a continue/error edge, and
 * for roots).
 */
export function lastOutputFor(graph: WorkflowGraph, state: RunState, stepId: string): unknown {
  let best: StepRunState | undefined;
  for (const edge of graph.incoming.get(stepId) ?? []) {
    const source = getStepState(state, edge.from);
    if (!isEdgeTaken(edge, source)) continue;
    if (!best || (source.endSeq ?? -1) > (best.endSeq ?? -1)) best = source;
  }
  return best && best.status === "completed" ? (best.output ?? null) : null;
}

/** The `steps` part of a template context: outputs and statuses of every step so far. */
export function stepsContext(state: RunState): Record<string, StepContextEntry> {
  const out: Record<string, StepContextEntry> = {};
  for (const [id, step] of Object.entries(state.steps)) {
    out[id] =
      step.status === "completed" || step.status === "failed"
        ? { output: step.output ?? null, status: step.status }
        : { status: step.status };
  }
  return out;
}

/** A step's template context: the run-wide parts plus `steps` and `lastOutput` from the state. */
export function contextForStep(
  graph: WorkflowGraph,
  state: RunState,
  stepId: string,
  base: Omit<TemplateContext, "steps" | "lastOutput"> & { steps?: TemplateContext["steps"] },
): TemplateContext {
  return {
    ...base,
    steps: { ...base.steps, ...stepsContext(state) },
    lastOutput: lastOutputFor(graph, state, stepId),
  };
}

// --- loops ---------------------------------------------------------------------------------

export interface IterationResult {
  readonly index: number;
  readonly verdict: RunVerdict;
  /** The iteration's value (see iterationValue). */
  readonly value: unknown;
}

/**
 * An iteration's value: a `return` step's value if one ended it, else the output data of the
 * last body step, in array order, that completed; null if none did.
 */
export function iterationValue(
  graph: WorkflowGraph,
  state: RunState,
  verdict: RunVerdict,
): unknown {
  if (verdict.returned) return verdict.output ?? null;
  for (let i = graph.ids.length - 1; i >= 0; i--) {
    const step = getStepState(state, graph.ids[i]!);
    if (step.status === "completed") return envelopeData(step.output) ?? null;
  }
  return null;
}

/**
 * Folds iteration results into the loop step's outcome: any cancelled iteration cancels the loop
 * (and so the run, like a rejected approval would); else any failed iteration (an unhandled
 * failure or a fail_run inside the body) fails the loop; else it completes on `done` with the
 * values in item order.
 */
export function loopOutcome(
  results: readonly IterationResult[],
  meta: Record<string, unknown> = {},
): StepOutcome {
  const sorted = [...results].sort((a, b) => a.index - b.index);
  const cancelled = sorted.find(
    (r) => r.verdict.status === "cancelled" || r.verdict.status === "timed_out",
  );
  if (cancelled)
    return {
      kind: "cancelled",
      reason: `iteration ${cancelled.index} was cancelled (${cancelled.verdict.reason})`,
    };
  const failed = sorted.find((r) => r.verdict.status === "failed");
  if (failed) {
    const culprit = failed.verdict.stepId ? ` at step "${failed.verdict.stepId}"` : "";
    return {
      kind: "failed",
      error: {
        message: `Iteration ${failed.index} failed${culprit} (${failed.verdict.reason}).`,
        index: failed.index,
        stepId: failed.verdict.stepId,
      },
    };
  }
  return {
    kind: "completed",
    port: "done",
    output: {
      type: "loop",
      data: sorted.map((r) => r.value),
      meta: { count: sorted.length, ...meta },
    },
  };
}
