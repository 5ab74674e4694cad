/**
 * What the run does next (the rules are in run-semantics.ts): which steps start, which are
 * skipped or cancelled, and whether and how the run ends.
 */
import { ERROR_PORT } from "./catalog";
import { isPlainObject } from "./json";
import { TERMINAL_STEP_STATUSES, type StepStatus } from "./status";
import type { GraphEdge, GraphStepLike, WorkflowGraph } from "./graph";
import {
  applyOutcome,
  envelopeData,
  getStepState,
  type NextActions,
  type RunState,
  type RunVerdict,
  type RunEndReason,
  type SkipReason,
  type StepRunState,
} from "./run-semantics";
import { ownValue } from "./run-steps-store";
import { RoundQueue, scheduleOf } from "./run-schedule";

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
    (id) => ownValue(state.steps, id)?.status === "failed" && !isFailureHandled(graph, id),
  );
}

export interface Halt {
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
    const step = ownValue(state.steps, id);
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
  // Acyclic graphs (every runnable one) use the state's incremental schedule: a round visits
  // only the steps it can decide, not every step of the run.
  if (!graph.isAcyclic) return nextActionsByScan(graph, state);
  const schedule = scheduleOf(graph, state, haltOf);
  const abort: Halt | null = state.abort
    ? { seq: state.abort.seq, status: state.abort.status, reason: "aborted" }
    : null;
  const halt = abort && (!schedule.halt || abort.seq < schedule.halt.seq) ? abort : schedule.halt;
  if (halt) return haltActions(graph, state, halt);
  const skipped = new Map<string, StepRunState>();
  const effective: Effective = (id) => skipped.get(id) ?? getStepState(state, id);
  const skip: Array<{ stepId: string; reason: SkipReason; detail: string }> = [];
  const ready: string[] = [];
  const queue = new RoundQueue(schedule);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const current = effective(id);
    if (current.status !== "pending") continue;
    const decision = decide(graph, id, effective);
    if (decision.kind === "skip") {
      skip.push({ stepId: id, reason: decision.reason, detail: decision.detail });
      skipped.set(id, { ...current, status: "skipped", reason: decision.reason });
      queue.resolved(id, (d) => effective(d).status === "pending");
    } else if (decision.kind === "ready") {
      ready.push(id);
    }
  }
  return roundActions(graph, state, effective, ready, skip, schedule.active);
}

/** nextActions by visiting every step (cyclic graphs; and the reference the schedule is tested against). */
export function nextActionsByScan(graph: WorkflowGraph, state: RunState): NextActions {
  const halt = findHalt(graph, state);
  if (halt) return haltActions(graph, state, halt);
  // The state with this round's skips applied: only the skips are kept apart.
  const skipped = new Map<string, StepRunState>();
  const effective: Effective = (id) => skipped.get(id) ?? getStepState(state, id);
  const skip: Array<{ stepId: string; reason: SkipReason; detail: string }> = [];
  const ready: string[] = [];
  for (const id of graph.order) {
    const current = effective(id);
    if (current.status !== "pending") continue;
    const decision = decide(graph, id, effective);
    if (decision.kind === "skip") {
      skip.push({ stepId: id, reason: decision.reason, detail: decision.detail });
      skipped.set(id, { ...current, status: "skipped", reason: decision.reason });
    } else if (decision.kind === "ready") {
      ready.push(id);
    }
  }
  const running = graph.ids.filter((id) => isActiveStatus(effective(id).status)).length;
  return roundActions(graph, state, effective, ready, skip, running);
}

function roundActions(
  graph: WorkflowGraph,
  state: RunState,
  effective: Effective,
  ready: string[],
  skip: NextActions["skip"],
  running: number,
): NextActions {
  const slots = Math.max(0, graph.maxParallel - running);
  const start = ready.slice(0, slots);
  const finished =
    ready.length === 0 && running === 0 ? settledVerdict(graph, state, effective) : null;
  return { start, waitingForSlot: ready.slice(slots), skip, cancel: [], finished };
}

type Effective = (id: string) => StepRunState;

type Decision =
  { kind: "wait" } | { kind: "ready" } | { kind: "skip"; reason: SkipReason; detail: string };

/** The join rule for one pending step, given the (hypothetical) states of its sources. */
function decide(graph: WorkflowGraph, id: string, effective: Effective): Decision {
  const incoming = graph.incoming.get(id) ?? [];
  if (incoming.some((e) => !isTerminalStep(effective(e.from)))) return { kind: "wait" };
  const vetoes = incoming.filter((e) => isFailureVeto(e, effective(e.from))).map((e) => e.from);
  if (vetoes.length > 0)
    return {
      kind: "skip",
      reason: "upstream_failed",
      detail: `${quoteList([...new Set(vetoes)])} failed (onFailure "skip")`,
    };
  if (incoming.length > 0 && !incoming.some((e) => isEdgeTaken(e, effective(e.from)))) {
    return {
      kind: "skip",
      reason: "branch_not_taken",
      detail: `no incoming edge was taken (${incoming.map((e) => describeEdge(e, effective(e.from))).join("; ")})`,
    };
  }
  const deps = graph.whenDeps.get(id) ?? [];
  if (deps.some((dep) => !isTerminalStep(effective(dep)))) return { kind: "wait" };
  return { kind: "ready" };
}

function describeEdge(edge: GraphEdge, source: StepRunState): string {
  const what = source.status === "completed" ? `completed on "${source.port}"` : source.status;
  return `"${edge.from}" ${what}, edge needs "${edge.port}"`;
}

function settledVerdict(
  graph: WorkflowGraph,
  state: RunState,
  effective: Effective,
): RunVerdict | null {
  const unhandled = unhandledFailures(graph, state);
  if (graph.ids.some((id) => effective(id).status === "pending")) {
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

function quoteList(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(", ");
}

export type { GraphStepLike };
