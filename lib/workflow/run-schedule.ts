/**
 * The scheduler's index over a run state (issue 28): which pending steps have every incoming
 * edge's source terminal ("candidates": the only steps a round can start or skip), how many steps are active, and the first halt. `nextActions` used to
 * find these by scanning every step each round, which made a chain of n steps cost O(n²); the
 * index is kept up to date by each transition (O(dependents)), so a round costs what it decides.
 * Attached to the state's store per graph (run-steps-store.ts `derived`), built once otherwise.
 */
import { Map as PMap, Set as PSet } from "immutable";
import type { WorkflowGraph } from "./graph";
import type { Halt } from "./run-decisions";
import type { RunState, StepRunState } from "./run-semantics";
import { storeOf, type Derived } from "./run-steps-store";
import { TERMINAL_STEP_STATUSES, type StepStatus } from "./status";

const TERMINAL: ReadonlySet<StepStatus> = new Set(TERMINAL_STEP_STATUSES);
const isTerminal = (s: StepRunState) => TERMINAL.has(s.status);
const isActive = (s: StepRunState) => s.status === "running" || s.status === "waiting";

type HaltOf = (graph: WorkflowGraph, id: string, step: StepRunState) => Halt | null;

/** Per graph: what waits for what, and the topological position of each step. */
export interface ScheduleIndex {
  readonly graph: WorkflowGraph;
  readonly orderIndex: ReadonlyMap<string, number>;
  /** Distinct targets of this step's edges. */
  readonly dependents: ReadonlyMap<string, readonly string[]>;
  /** Distinct sources of this step's incoming edges. */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
  readonly haltOf: HaltOf;
}

const indexes = new WeakMap<WorkflowGraph, ScheduleIndex>();

function indexFor(graph: WorkflowGraph, haltOf: HaltOf): ScheduleIndex {
  let index = indexes.get(graph);
  if (!index) {
    const dependencies = new Map<string, string[]>();
    const dependents = new Map<string, string[]>(graph.ids.map((id) => [id, []]));
    for (const id of graph.ids) {
      // Edge sources only: a step whose edges are all decided may be skipped before the steps
      // its `when` references finish (decide() checks those, each round it is a candidate).
      const deps = [...new Set((graph.incoming.get(id) ?? []).map((e) => e.from))];
      dependencies.set(id, deps);
      for (const d of deps) dependents.get(d)?.push(id);
    }
    const orderIndex = new Map(graph.order.map((id, i) => [id, i]));
    index = { graph, orderIndex, dependents, dependencies, haltOf };
    indexes.set(graph, index);
  }
  return index;
}

export class Schedule implements Derived<StepRunState> {
  constructor(
    readonly index: ScheduleIndex,
    /** Non-terminal edge sources left, per step. */
    readonly unresolved: PMap<string, number>,
    /** Pending steps whose edge sources are all terminal. */
    readonly candidates: PSet<string>,
    /** Running or waiting steps. */
    readonly active: number,
    /** The step halt with the lowest sequence number (the abort is the state's own). */
    readonly halt: Halt | null,
  ) {}

  next(
    key: string,
    before: StepRunState,
    after: StepRunState,
    lookup: (key: string) => StepRunState | undefined,
  ): Schedule {
    let { unresolved, candidates, halt } = this;
    const active = this.active + Number(isActive(after)) - Number(isActive(before));
    if (before.status === "pending" && after.status !== "pending")
      candidates = candidates.remove(key);
    if (!isTerminal(before) && isTerminal(after)) {
      for (const d of this.index.dependents.get(key) ?? []) {
        const left = unresolved.get(d, 0) - 1;
        unresolved = unresolved.set(d, left);
        if (left === 0 && lookup(d)?.status === "pending") candidates = candidates.add(d);
      }
    }
    if (before.endSeq === undefined && after.endSeq !== undefined) {
      const h = this.index.haltOf(this.index.graph, key, after);
      if (h && (!halt || h.seq < halt.seq)) halt = h;
    }
    return new Schedule(this.index, unresolved, candidates, active, halt);
  }
}

/** The state's schedule for an acyclic graph: kept by its transitions, or built (O(n)) once. */
export function scheduleOf(graph: WorkflowGraph, state: RunState, haltOf: HaltOf): Schedule {
  const store = storeOf(state.steps);
  const cached = store.derived.get(graph);
  if (cached instanceof Schedule) return cached;
  const index = indexFor(graph, haltOf);
  const get = (id: string) => store.map.get(id)!;
  let unresolved = PMap<string, number>();
  let candidates = PSet<string>();
  let active = 0;
  let halt: Halt | null = null;
  for (const id of graph.ids) {
    const step = get(id);
    if (isActive(step)) active++;
    const left = index.dependencies.get(id)!.filter((d) => !isTerminal(get(d))).length;
    unresolved = unresolved.set(id, left);
    if (left === 0 && step.status === "pending") candidates = candidates.add(id);
    if (step.endSeq !== undefined) {
      const h = haltOf(graph, id, step);
      if (h && (!halt || h.seq < halt.seq)) halt = h;
    }
  }
  const schedule = new Schedule(index, unresolved, candidates, active, halt);
  store.derived.set(graph, schedule);
  return schedule;
}

/**
 * Pending steps in topological order as a round decides them: the candidates first, and each
 * step a decision made terminal during the round (a skip) unblocks, inserted in order.
 */
export class RoundQueue {
  private readonly ids: string[];
  private readonly unresolved = new Map<string, number>();
  private at = 0;

  constructor(private readonly schedule: Schedule) {
    const pos = schedule.index.orderIndex;
    this.ids = [...schedule.candidates].sort((a, b) => pos.get(a)! - pos.get(b)!);
  }

  shift(): string | undefined {
    return this.ids[this.at++];
  }

  /** `id` became terminal in this round: its dependents may now be decided. */
  resolved(id: string, isPending: (id: string) => boolean): void {
    const pos = this.schedule.index.orderIndex;
    for (const d of this.schedule.index.dependents.get(id) ?? []) {
      const left = (this.unresolved.get(d) ?? this.schedule.unresolved.get(d, 0)) - 1;
      this.unresolved.set(d, left);
      if (left !== 0 || !isPending(d)) continue;
      // A dependent comes after `id` in topological order, so after everything decided so far.
      let i = this.ids.length;
      while (i > this.at && pos.get(this.ids[i - 1]!)! > pos.get(d)!) i--;
      this.ids.splice(i, 0, d);
    }
  }
}
