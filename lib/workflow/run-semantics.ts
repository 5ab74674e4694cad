/**
 * The engine's pure run semantics (SPEC §3), as small functions over an immutable, JSON-friendly
 * RunState. The durable executor drives it:
 *
 *   state = initialState(graph)
 *   loop: a = nextActions(graph, state)
 *         apply a.skip / a.cancel with applyOutcome; if a.finished → end the run with it
 *         for each id in a.start: evaluate `when` (false → applyOutcome skipped "when_false"),
 *                                 else markStarted and run the step
 *         on each result → applyOutcome(state, id, completed | failed | cancelled)
 *
 * Rules:
 * - A step is decided once every incoming edge's source is terminal. It is skipped when none of
 *   its incoming edges was taken, and skips propagate: an untaken branch's children and
 *   grandchildren are skipped, never run. Roots (no incoming edge) always count as taken.
 * - An edge is taken when its source completed on the edge's port; when the source failed, an
 *   `error`-port edge or an `onFailure: "continue"` edge is taken (the target sees the source
 *   output as null) and the failure counts as handled. A failed source on a `skip` edge (the
 *   default) skips the target outright, even if another incoming edge was taken: nothing
 *   consumes a failed input unless an edge says so. Its further descendants are then skipped
 *   like any untaken branch (a join still runs if another of its edges was taken).
 * - A step also waits for the steps its `when` references (they need not be edges).
 * - At most `maxParallel` steps run at once; ready steps start in topological, then array, order.
 * - The run stops at once (first event wins, by completion order) when: a `return` step
 *   completes (completed — or failed if an unhandled failure happened before); a step fails that
 *   has an outgoing `fail_run` edge (failed; fail_run wins over an error edge on the same step);
 *   an approval completes on `rejected` without a `rejected` edge (cancelled); a step reports
 *   `cancelled` (cancelled); or abortRun is called (cancelled / timed_out). Running steps are then
 *   cancelled; pending steps are cancelled too, except after a `return`, where they are skipped
 *   (the run completed, they were not needed).
 * - Otherwise the run ends when every step is terminal: failed if any failure was unhandled,
 *   else completed.
 * - Retries happen below this level: only an attempt's final outcome is applied.
 */
import { STEP_CATALOG } from "./catalog";
import { isPlainObject } from "./json";
import { isStepType } from "./steps";
import type { StepStatus } from "./status";
import { type GraphSource, type GraphStepLike, type WorkflowGraph } from "./graph";
import { buildRunnableGraph } from "./graph-cycles";
import { ownValue, storeOf, storeView, withValue } from "./run-steps-store";

export type SkipReason = "branch_not_taken" | "upstream_failed" | "when_false" | "run_ended";

export type StepOutcome =
  | { readonly kind: "completed"; readonly port?: string; readonly output?: unknown }
  | { readonly kind: "failed"; readonly error?: unknown }
  | { readonly kind: "skipped"; readonly reason: SkipReason; readonly detail?: string }
  | { readonly kind: "cancelled"; readonly reason?: string };

export interface StepRunState {
  readonly type: string;
  readonly status: StepStatus;
  /** Port chosen by a completed step. */
  readonly port?: string;
  /** Output envelope of a completed step (null for failed steps). */
  readonly output?: unknown;
  readonly error?: unknown;
  readonly reason?: string;
  /** Order of starts and of terminal outcomes, for lastOutput and "first event wins". */
  readonly startSeq?: number;
  readonly endSeq?: number;
}

export interface RunState {
  readonly steps: Readonly<Record<string, StepRunState>>;
  readonly seq: number;
  readonly abort?: {
    readonly status: "cancelled" | "timed_out";
    readonly reason: string;
    readonly seq: number;
  };
}

export type RunEndReason =
  | "all_steps_finished"
  | "unhandled_failure"
  | "returned"
  | "fail_run"
  | "approval_rejected"
  | "approval_timeout"
  | "step_cancelled"
  | "aborted"
  | "stalled";

export interface RunVerdict {
  readonly status: "completed" | "failed" | "cancelled" | "timed_out";
  readonly reason: RunEndReason;
  /** The step that ended the run (return, fail_run source, rejected approval, cancelled step). */
  readonly stepId?: string;
  /** Failed steps whose failure nothing handled. */
  readonly unhandledFailures: readonly string[];
  /** The value of the `return` step that ended the run, if any. */
  readonly output?: unknown;
  readonly returned: boolean;
}

export interface NextActions {
  /** Start these now (a `when` may still skip them). */
  readonly start: readonly string[];
  /** Ready, but maxParallel steps are already running. */
  readonly waitingForSlot: readonly string[];
  /** Mark these skipped (apply in order; already propagated). */
  readonly skip: ReadonlyArray<{
    readonly stepId: string;
    readonly reason: SkipReason;
    readonly detail: string;
  }>;
  /** The run is ending: stop these steps (`cancelled`) or mark them `skipped` (after a return). */
  readonly cancel: ReadonlyArray<{
    readonly stepId: string;
    readonly status: "cancelled" | "skipped";
    readonly reason: string;
  }>;
  /** Set when the run is over (after applying `skip`/`cancel`). */
  readonly finished: RunVerdict | null;
}

export class RunStateError extends Error {
  override readonly name = "RunStateError";
}

// ------------------------------------------------------------------------------------------
// State transitions
// ------------------------------------------------------------------------------------------

/** Every step pending. Accepts a built graph or anything buildGraph accepts. */
export function initialState(source: WorkflowGraph | GraphSource): RunState {
  const graph = isGraph(source) ? source : buildRunnableGraph(source);
  const steps: Record<string, StepRunState> = {};
  for (const id of graph.ids) steps[id] = { type: graph.nodes.get(id)!.type, status: "pending" };
  return { steps, seq: 0 };
}

function isGraph(value: WorkflowGraph | GraphSource): value is WorkflowGraph {
  return (value as WorkflowGraph).kind === "workflow-graph";
}

export function getStepState(state: RunState, stepId: string): StepRunState {
  const step = ownValue(state.steps, stepId);
  if (step === undefined) throw new RunStateError(`Unknown step "${stepId}" in this run state.`);
  return step;
}

/** One step replaced, the others shared with `state` (run-steps-store.ts: O(log n), not a copy). */
function setStep(state: RunState, stepId: string, next: StepRunState, seq: number): RunState {
  const steps = storeView(withValue(storeOf(state.steps), stepId, next));
  return { ...state, steps, seq };
}

function withStep(state: RunState, stepId: string, next: StepRunState): RunState {
  return setStep(state, stepId, next, state.seq + 1);
}

export function markStarted(state: RunState, stepId: string): RunState {
  const current = getStepState(state, stepId);
  if (current.status !== "pending")
    throw new RunStateError(`Step "${stepId}" cannot start: it is ${current.status}.`);
  return withStep(state, stepId, { ...current, status: "running", startSeq: state.seq });
}

/** The engine may flag a running step as waiting (approvals, delays, event waits). */
export function markWaiting(state: RunState, stepId: string): RunState {
  const current = getStepState(state, stepId);
  if (current.status !== "running")
    throw new RunStateError(`Step "${stepId}" cannot wait: it is ${current.status}.`);
  return setStep(state, stepId, { ...current, status: "waiting" }, state.seq);
}

/** Records a terminal outcome. Throws if the step is already terminal or the port is unknown. */
export function applyOutcome(state: RunState, stepId: string, outcome: StepOutcome): RunState {
  const current = getStepState(state, stepId);
  const active = current.status === "running" || current.status === "waiting";
  const end = { endSeq: state.seq };
  switch (outcome.kind) {
    case "completed": {
      if (!active)
        throw new RunStateError(`Step "${stepId}" cannot complete: it is ${current.status}.`);
      const port = outcome.port ?? defaultPort(current.type);
      assertPort(stepId, current.type, port);
      return withStep(state, stepId, {
        ...current,
        ...end,
        status: "completed",
        ...(port !== undefined ? { port } : {}),
        output: outcome.output ?? null,
      });
    }
    case "failed":
      if (!active)
        throw new RunStateError(`Step "${stepId}" cannot fail: it is ${current.status}.`);
      return withStep(state, stepId, {
        ...current,
        ...end,
        status: "failed",
        output: null,
        error: outcome.error ?? null,
      });
    case "skipped":
      if (current.status !== "pending")
        throw new RunStateError(`Step "${stepId}" cannot be skipped: it is ${current.status}.`);
      return withStep(state, stepId, {
        ...current,
        ...end,
        status: "skipped",
        reason: outcome.reason,
      });
    case "cancelled":
      if (current.status !== "pending" && !active)
        throw new RunStateError(`Step "${stepId}" cannot be cancelled: it is ${current.status}.`);
      return withStep(state, stepId, {
        ...current,
        ...end,
        status: "cancelled",
        reason: outcome.reason ?? "cancelled",
      });
  }
}

/** External stop (cancel request honoured, run deadline): nextActions then cancels everything left. */
export function abortRun(
  state: RunState,
  status: "cancelled" | "timed_out",
  reason: string = status,
): RunState {
  if (state.abort) return state;
  return { ...state, abort: { status, reason, seq: state.seq }, seq: state.seq + 1 };
}

/** The port a completion uses when none is given; `return` steps have none (they end the run). */
function defaultPort(type: string): string | undefined {
  if (!isStepType(type)) return "success";
  return STEP_CATALOG[type].defaultPort ?? undefined;
}

function assertPort(stepId: string, type: string, port: string | undefined): void {
  if (!isStepType(type)) return;
  const ports = STEP_CATALOG[type].ports;
  if (port === undefined ? ports.length > 0 : !ports.includes(port)) {
    throw new RunStateError(
      `Step "${stepId}" (${type}) completed on port "${port}", but its ports are ${ports.length ? ports.join(", ") : "none"}.`,
    );
  }
}

/** `data` of an output envelope `{ type, data, meta }` (other values are returned as they are). */
export function envelopeData(output: unknown): unknown {
  return isPlainObject(output) && "data" in output ? output.data : output;
}

export type { GraphStepLike };
