import "server-only";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource, SelectedFields } from "drizzle-orm/pg-core";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type { Queryable } from "@/db/client";
import { approvals, proposals, runs, runSteps, tasks } from "@/db/schema";
import type { ApprovalStatus } from "@/lib/schemas/runs";
import type { TaskStatus } from "@/lib/schemas/tasks";
import {
  APPROVAL_TRANSITIONS,
  PROPOSAL_TRANSITIONS,
  RUN_TRANSITIONS,
  STEP_TRANSITIONS,
  TASK_TRANSITIONS,
  transitionSources,
  type ProposalStatus,
  type RunStatus,
  type StepStatus,
} from "@/lib/workflow/status";
import { observeRunEnds } from "@/server/observability/run-observer";

/**
 * The one way a run, step, approval, task or proposal status is written (CONVENTIONS habit 6):
 * one `UPDATE … SET status = <to> WHERE <rows> AND status IN (<from>) RETURNING …`, where `from`
 * is every status the transition table in lib/workflow/status.ts allows `to` from. The caller
 * checks `won` (or the rows), so double clicks, replays and racing writers decide once.
 */

/** A target chosen in SQL per row: `then` where `when` holds, else `else` (see transitionSources). */
export interface StatusChoice<S extends string> {
  when: SQL;
  then: S;
  else: S;
}

export interface TransitionArgs<S extends string, TTable extends PgTable, R> {
  to: S | StatusChoice<S>;
  /** The row (or rows) by id; `where` adds conditions, or selects the rows on its own. */
  id?: string | readonly string[];
  where?: SQL;
  /**
   * Narrows the table's starting states for this write (e.g. only a `queued` run is abandoned).
   * A status the table does not allow towards `to` throws: that write would be an illegal move.
   */
  from?: readonly S[];
  /** Other columns written with the status. */
  set?: Omit<PgUpdateSetSource<TTable>, "status">;
  /** Columns to return from the rows that moved (default: their ids). */
  returning?: R;
}

export interface TransitionResult<T> {
  /** At least one row moved. */
  won: boolean;
  rows: T[];
}

/** The illegal-move error: a write asked for starting states its transition table forbids. */
export class IllegalTransitionError extends Error {
  constructor(kind: string, from: readonly string[], to: readonly string[]) {
    super(
      `Illegal ${kind} transition ${from.join(", ")} → ${to.join(" | ")}: not in the transition table (lib/workflow/status.ts)`,
    );
    this.name = "IllegalTransitionError";
  }
}

/** The `from` of a write: the table's sources of `to`, narrowed by the caller's `from`. */
function startingStates<S extends string>(
  kind: string,
  table: Readonly<Record<S, readonly S[]>>,
  to: S | StatusChoice<S>,
  from?: readonly S[],
): S[] {
  const targets = typeof to === "string" ? [to] : [to.then, to.else];
  const allowed = transitionSources(table, targets);
  if (!from) return allowed;
  const illegal = from.filter((s) => !allowed.includes(s));
  if (illegal.length) throw new IllegalTransitionError(kind, illegal, targets);
  return [...from];
}

interface TransitionSpec<S extends string, TTable extends PgTable> {
  kind: string;
  table: TTable;
  id: PgColumn;
  status: PgColumn;
  enumName: string;
  transitions: Readonly<Record<S, readonly S[]>>;
}

async function transition<S extends string, TTable extends PgTable, R extends SelectedFields>(
  tx: Queryable,
  spec: TransitionSpec<S, TTable>,
  args: TransitionArgs<S, TTable, R>,
): Promise<TransitionResult<SelectResultFields<R>>> {
  const statement = transitionStatement(tx, spec, args);
  if (!statement) return { won: false, rows: [] };
  const rows = (await statement) as SelectResultFields<R>[];
  return { won: rows.length > 0, rows };
}

/** The compare-and-set UPDATE … RETURNING, not yet run (undefined: no legal starting state). */
function transitionStatement<S extends string, TTable extends PgTable, R extends SelectedFields>(
  tx: Queryable,
  spec: TransitionSpec<S, TTable>,
  args: TransitionArgs<S, TTable, R>,
) {
  const from = startingStates(spec.kind, spec.transitions, args.to, args.from);
  if (args.id === undefined && !args.where)
    throw new Error(`A ${spec.kind} transition needs an id or a where clause`);
  if (!from.length) return undefined;
  const to = args.to;
  const status =
    typeof to === "string"
      ? to
      : sql`case when ${to.when} then ${to.then}::${sql.raw(spec.enumName)} else ${to.else}::${sql.raw(spec.enumName)} end`;
  const byId =
    args.id === undefined
      ? undefined
      : typeof args.id === "string"
        ? eq(spec.id, args.id)
        : inArray(spec.id, [...args.id]);
  return tx
    .update(spec.table)
    .set({ ...args.set, status } as PgUpdateSetSource<TTable>)
    .where(and(byId, args.where, inArray(spec.status, from)))
    .returning(args.returning ?? { id: spec.id });
}

/** Moves runs to `to` (compare-and-set on RUN_TRANSITIONS). */
export async function transitionRun<R extends SelectedFields = { id: typeof runs.id }>(
  tx: Queryable,
  args: TransitionArgs<RunStatus, typeof runs, R>,
) {
  // Ended runs feed metrics and traces (server/observability), which add RETURNING columns.
  const seen = observeRunEnds(tx, args.to);
  const moved = await transition(
    tx,
    {
      kind: "run",
      table: runs,
      id: runs.id,
      status: runs.status,
      enumName: "run_status",
      transitions: RUN_TRANSITIONS,
    },
    seen ? { ...args, returning: seen.returning(args.returning ?? { id: runs.id }) as R } : args,
  );
  return seen ? { ...moved, rows: seen.take(moved.rows) } : moved;
}

const STEP_SPEC: TransitionSpec<StepStatus, typeof runSteps> = {
  kind: "step",
  table: runSteps,
  id: runSteps.id,
  status: runSteps.status,
  enumName: "step_status",
  transitions: STEP_TRANSITIONS,
};

/** Moves step attempts to `to` (compare-and-set on STEP_TRANSITIONS). */
export function transitionStep<R extends SelectedFields = { id: typeof runSteps.id }>(
  tx: Queryable,
  args: TransitionArgs<StepStatus, typeof runSteps, R>,
) {
  return transition(tx, STEP_SPEC, args);
}

/**
 * transitionStep's compare-and-set as SQL to embed (a `with moved as (…)` whose RETURNING rows a
 * following write in the same statement reads); undefined when no starting state is legal.
 */
export function transitionStepStatement<R extends SelectedFields = { id: typeof runSteps.id }>(
  tx: Queryable,
  args: TransitionArgs<StepStatus, typeof runSteps, R>,
): SQL | undefined {
  return transitionStatement(tx, STEP_SPEC, args)?.getSQL();
}

/** Moves change proposals to `to` (compare-and-set on PROPOSAL_TRANSITIONS). */
export function transitionProposal<R extends SelectedFields = { id: typeof proposals.id }>(
  tx: Queryable,
  args: TransitionArgs<ProposalStatus, typeof proposals, R>,
) {
  return transition(
    tx,
    {
      kind: "proposal",
      table: proposals,
      id: proposals.id,
      status: proposals.status,
      enumName: "proposal_status",
      transitions: PROPOSAL_TRANSITIONS,
    },
    args,
  );
}

/** Moves approvals to `to` (compare-and-set on APPROVAL_TRANSITIONS). */
export function transitionApproval<R extends SelectedFields = { id: typeof approvals.id }>(
  tx: Queryable,
  args: TransitionArgs<ApprovalStatus, typeof approvals, R>,
) {
  return transition(
    tx,
    {
      kind: "approval",
      table: approvals,
      id: approvals.id,
      status: approvals.status,
      enumName: "approval_status",
      transitions: APPROVAL_TRANSITIONS,
    },
    args,
  );
}

/** Moves tasks to `to` (compare-and-set on TASK_TRANSITIONS). */
export function transitionTask<R extends SelectedFields = { id: typeof tasks.id }>(
  tx: Queryable,
  args: TransitionArgs<TaskStatus, typeof tasks, R>,
) {
  return transition(
    tx,
    {
      kind: "task",
      table: tasks,
      id: tasks.id,
      status: tasks.status,
      enumName: "task_status",
      transitions: TASK_TRANSITIONS,
    },
    args,
  );
}
