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
import { ERROR_PORT, STEP_CATALOG } from "./catalog";
import { isPlainObject } from "./json";
import { isStepType } from "./steps";
import { TERMINAL_STEP_STATUSES, type StepStatus } from "./status";
import {
  buildRunnableGraph,
  type GraphEdge,
  type GraphSource,
  type GraphStepLike,
  type WorkflowGraph,
} from "./graph";
import type { StepContextEntry, TemplateContext } from "./template-resolve";

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
  if (!Object.prototype.hasOwnProperty.call(state.steps, stepId))
    throw new RunStateError(`Unknown step "${stepId}" in this run state.`);
  return state.steps[stepId]!;
}

function withStep(state: RunState, stepId: string, next: StepRunState): RunState {
  return { ...state, steps: { ...state.steps, [stepId]: next }, seq: state.seq + 1 };
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
  return { ...state, steps: { ...state.steps, [stepId]: { ...current, status: "waiting" } } };
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

// ------------------------------------------------------------------------------------------
// Decisions
// ------------------------------------------------------------------------------------------

const TERMINAL: ReadonlySet<StepStatus> = new Set(TERMINAL_STEP_STATUSES);

export function isTerminalStep(step: StepRunState): boolean {
  return TERMINAL.has(step.status);
}

/** Whether an edge lets its target run, given the source's terminal state. */
export function isEdgeTaken(edge: GraphEdge, source: StepRunState): boolean {
  switch (source.status) {
    case "completed":
      return edge.port !== ERROR_PORT && edge.port === source.port;
    case "failed":
      return edge.port === ERROR_PORT || edge.onFailure === "continue";
    default:
      return false;
  }
}

/**
 * `onFailure: "skip"` (the default) means "the target is skipped if this source failed" — even when
 * another incoming edge was taken, so nothing consumes a failed input unless an edge says
 * `continue`. (An untaken branch, by contrast, only makes its edge not taken.)
 */
export function isFailureVeto(edge: GraphEdge, source: StepRunState): boolean {
  return source.status === "failed" && edge.port !== ERROR_PORT && edge.onFailure === "skip";
}

/** A failed step's failure is handled when it has an error edge or a continue edge. */
export function isFailureHandled(graph: WorkflowGraph, stepId: string): boolean {
  return (graph.outgoing.get(stepId) ?? []).some(
    (e) => e.port === ERROR_PORT || e.onFailure === "continue",
  );
}

export function unhandledFailures(graph: WorkflowGraph, state: RunState): string[] {
  return graph.ids.filter(
    (id) => state.steps[id]?.status === "failed" && !isFailureHandled(graph, id),
  );
}

interface Halt {
  readonly seq: number;
  readonly status: RunVerdict["status"];
  readonly reason: RunEndReason;
  readonly stepId?: string;
  readonly output?: unknown;
}

/** The first "stop the run now" event, by completion order; null when the run goes on. */
export function findHalt(graph: WorkflowGraph, state: RunState): Halt | null {
  let first: Halt | null = state.abort
    ? { seq: state.abort.seq, status: state.abort.status, reason: "aborted" }
    : null;
  const consider = (halt: Halt) => {
    if (!first || halt.seq < first.seq) first = halt;
  };
  for (const id of graph.ids) {
    const step = state.steps[id];
    if (!step || step.endSeq === undefined) continue;
    const halt = haltOf(graph, id, step);
    if (halt) consider(halt);
  }
  return first;
}

function haltOf(graph: WorkflowGraph, id: string, step: StepRunState): Halt | null {
  const seq = step.endSeq!;
  const out = graph.outgoing.get(id) ?? [];
  if (step.status === "completed" && step.type === "return") {
    return {
      seq,
      status: "completed",
      reason: "returned",
      stepId: id,
      output: envelopeData(step.output),
    };
  }
  if (
    step.status === "failed" &&
    out.some((e) => e.onFailure === "fail_run" && e.port !== ERROR_PORT)
  ) {
    return { seq, status: "failed", reason: "fail_run", stepId: id };
  }
  if (
    step.status === "completed" &&
    step.type === "approval" &&
    step.port === "rejected" &&
    !out.some((e) => e.port === "rejected")
  ) {
    // A gate that expired (onTimeout: reject) says so at run level too, not "rejected" as if a
    // person had decided.
    const timedOut =
      isPlainObject(step.output) && isPlainObject(step.output.meta)
        ? step.output.meta.timedOut === true
        : false;
    return {
      seq,
      status: "cancelled",
      reason: timedOut ? "approval_timeout" : "approval_rejected",
      stepId: id,
    };
  }
  if (step.status === "cancelled" && step.reason !== "run_ended") {
    return { seq, status: "cancelled", reason: "step_cancelled", stepId: id };
  }
  return null;
}

/** What the engine should do next. Pure: apply the returned skips/cancels with applyOutcome. */
export function nextActions(graph: WorkflowGraph, state: RunState): NextActions {
  const halt = findHalt(graph, state);
  if (halt) return haltActions(graph, state, halt);
  const effective = new Map<string, StepRunState>(
    graph.ids.map((id) => [id, getStepState(state, id)]),
  );
  const skip: Array<{ stepId: string; reason: SkipReason; detail: string }> = [];
  const ready: string[] = [];
  for (const id of graph.order) {
    if (effective.get(id)!.status !== "pending") continue;
    const decision = decide(graph, id, effective);
    if (decision.kind === "skip") {
      skip.push({ stepId: id, reason: decision.reason, detail: decision.detail });
      effective.set(id, { ...effective.get(id)!, status: "skipped", reason: decision.reason });
    } else if (decision.kind === "ready") {
      ready.push(id);
    }
  }
  const running = graph.ids.filter((id) => isActiveStatus(effective.get(id)!.status)).length;
  const slots = Math.max(0, graph.maxParallel - running);
  const start = ready.slice(0, slots);
  const finished =
    ready.length === 0 && running === 0 ? settledVerdict(graph, state, effective) : null;
  return { start, waitingForSlot: ready.slice(slots), skip, cancel: [], finished };
}

type Decision =
  { kind: "wait" } | { kind: "ready" } | { kind: "skip"; reason: SkipReason; detail: string };

/** The join rule for one pending step, given the (hypothetical) states of its sources. */
function decide(
  graph: WorkflowGraph,
  id: string,
  effective: ReadonlyMap<string, StepRunState>,
): Decision {
  const incoming = graph.incoming.get(id) ?? [];
  if (incoming.some((e) => !isTerminalStep(effective.get(e.from)!))) return { kind: "wait" };
  const vetoes = incoming
    .filter((e) => isFailureVeto(e, effective.get(e.from)!))
    .map((e) => e.from);
  if (vetoes.length > 0)
    return {
      kind: "skip",
      reason: "upstream_failed",
      detail: `${quoteList([...new Set(vetoes)])} failed (onFailure "skip")`,
    };
  if (incoming.length > 0 && !incoming.some((e) => isEdgeTaken(e, effective.get(e.from)!))) {
    return {
      kind: "skip",
      reason: "branch_not_taken",
      detail: `no incoming edge was taken (${incoming.map((e) => describeEdge(e, effective.get(e.from)!)).join("; ")})`,
    };
  }
  const deps = graph.whenDeps.get(id) ?? [];
  if (deps.some((dep) => !isTerminalStep(effective.get(dep)!))) return { kind: "wait" };
  return { kind: "ready" };
}

function describeEdge(edge: GraphEdge, source: StepRunState): string {
  const what = source.status === "completed" ? `completed on "${source.port}"` : source.status;
  return `"${edge.from}" ${what}, edge needs "${edge.port}"`;
}

function settledVerdict(
  graph: WorkflowGraph,
  state: RunState,
  effective: ReadonlyMap<string, StepRunState>,
): RunVerdict | null {
  const unhandled = unhandledFailures(graph, state);
  if ([...effective.values()].some((s) => s.status === "pending")) {
    // Only reachable with a cyclic graph, which buildRunnableGraph refuses.
    return { status: "failed", reason: "stalled", unhandledFailures: unhandled, returned: false };
  }
  return unhandled.length > 0
    ? {
        status: "failed",
        reason: "unhandled_failure",
        stepId: unhandled[0],
        unhandledFailures: unhandled,
        returned: false,
      }
    : { status: "completed", reason: "all_steps_finished", unhandledFailures: [], returned: false };
}

function haltActions(graph: WorkflowGraph, state: RunState, halt: Halt): NextActions {
  const returned = halt.reason === "returned";
  const cancel = graph.ids
    .filter((id) => !isTerminalStep(getStepState(state, id)))
    .map((id) => {
      const pendingAfterReturn = returned && getStepState(state, id).status === "pending";
      return {
        stepId: id,
        status: pendingAfterReturn ? ("skipped" as const) : ("cancelled" as const),
        reason: "run_ended",
      };
    });
  // Only failures before the halt count: steps failing while being stopped do not change the verdict.
  const unhandled = unhandledFailures(graph, state).filter(
    (id) => (getStepState(state, id).endSeq ?? 0) < halt.seq,
  );
  const status = returned && unhandled.length > 0 ? "failed" : halt.status;
  const verdict: RunVerdict = {
    status,
    reason: status === "failed" && returned ? "unhandled_failure" : halt.reason,
    stepId: status === "failed" && returned ? unhandled[0] : halt.stepId,
    unhandledFailures: unhandled,
    output: halt.output,
    returned,
  };
  return { start: [], waitingForSlot: [], skip: [], cancel, finished: verdict };
}

/** Applies a NextActions' skips and cancels (the bookkeeping every driver repeats). */
export function applyDecisions(state: RunState, actions: NextActions): RunState {
  let next = state;
  for (const s of actions.skip)
    next = applyOutcome(next, s.stepId, { kind: "skipped", reason: s.reason, detail: s.detail });
  for (const c of actions.cancel) {
    next =
      c.status === "skipped"
        ? applyOutcome(next, c.stepId, { kind: "skipped", reason: "run_ended" })
        : applyOutcome(next, c.stepId, { kind: "cancelled", reason: "run_ended" });
  }
  return next;
}

function isActiveStatus(status: StepStatus): boolean {
  return status === "running" || status === "waiting";
}

// ------------------------------------------------------------------------------------------
// Context for templates
// ------------------------------------------------------------------------------------------

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

/** `data` of an output envelope `{ type, data, meta }` (other values are returned as they are). */
export function envelopeData(output: unknown): unknown {
  return isPlainObject(output) && "data" in output ? output.data : output;
}

// ------------------------------------------------------------------------------------------
// Loops
// ------------------------------------------------------------------------------------------

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

function quoteList(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(", ");
}

export type { GraphStepLike };
