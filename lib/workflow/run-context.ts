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
import { getOwn } from "./json";
import { recordView, storeOf } from "./run-steps-store";

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

const entries = new WeakMap<StepRunState, StepContextEntry>();

/** A step's `steps.<id>` entry (one object per step state, shared by every context). */
function entryOf(step: StepRunState): StepContextEntry {
  let entry = entries.get(step);
  if (!entry) {
    entry =
      step.status === "completed" || step.status === "failed"
        ? { output: step.output ?? null, status: step.status }
        : { status: step.status };
    entries.set(step, entry);
  }
  return entry;
}

/**
 * The `steps` part of a template context: outputs and statuses of every step so far. A read-only
 * view over the (immutable) state, built in O(1): a chain no longer rebuilds it per step.
 */
export function stepsContext(state: RunState): Record<string, StepContextEntry> {
  const store = storeOf(state.steps);
  return recordView(store.keys, (id) => {
    const step = store.map.get(id);
    return step && entryOf(step);
  });
}

const unionKeys = new WeakMap<object, WeakMap<readonly string[], string[]>>();

/** `{ ...outer, ...stepsContext(state) }` as a view (loop bodies see the outer steps too). */
function withOuter(
  outer: Record<string, StepContextEntry>,
  state: RunState,
): Record<string, StepContextEntry> {
  const store = storeOf(state.steps);
  const byKeys = unionKeys.get(outer) ?? new WeakMap<readonly string[], string[]>();
  unionKeys.set(outer, byKeys);
  let keys = byKeys.get(store.keys);
  if (!keys) {
    // Built through a plain object so the order is a spread's (integer-like ids first).
    const union: Record<string, true> = {};
    for (const k of Object.keys(outer)) union[k] = true;
    for (const k of store.keys) union[k] = true;
    keys = Object.keys(union);
    byKeys.set(store.keys, keys);
  }
  return recordView(keys, (id) => {
    const step = store.map.get(id);
    return step ? entryOf(step) : (getOwn(outer, id) as StepContextEntry | undefined);
  });
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
    steps: base.steps ? withOuter(base.steps, state) : stepsContext(state),
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
