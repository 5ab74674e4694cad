import "server-only";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { execRows, type Db, type Queryable } from "@/db/client";
import { runSteps } from "@/db/schema";
import type { FailureClass, StepStatus } from "@/lib/workflow";
import { appendRunEvents } from "../runs/run-events";
import { refreshRunStatus } from "./run-plan";
import { transitionStep, transitionStepStatement } from "./transition";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";

export interface AttemptKey {
  runId: string;
  workspaceId: string;
  stepId: string;
  path: string;
  stepType: string;
  attempt: number;
}

/** The columns that identify an attempt's row (its id is stable: re-inserts conflict). */
export function attemptIdentity(key: AttemptKey) {
  return {
    id: `${key.runId}:${key.path}:${key.attempt}`,
    runId: key.runId,
    workspaceId: key.workspaceId,
    stepId: key.stepId,
    path: key.path,
    stepType: key.stepType,
    attempt: key.attempt,
  };
}

/** An attempt's row by its run, path and attempt number. */
function attemptRow(key: AttemptKey) {
  return and(
    eq(runSteps.runId, key.runId),
    eq(runSteps.path, key.path),
    eq(runSteps.attempt, key.attempt),
  );
}

/**
 * Records that an attempt started (or started waiting). Idempotent: a durable step re-executed
 * after a crash finds its row and keeps it — attempts are at-least-once, rows exactly once.
 */
export async function beginAttempt(
  db: Db,
  key: AttemptKey,
  args: { input?: unknown; status?: "running" | "waiting"; now: Date; refresh?: boolean },
): Promise<void> {
  await insertAttempt(db, key, { status: args.status ?? "running", input: args.input }, args.now);
  if (args.refresh !== false) await refreshRunStatus(db, key.runId, args.now);
}

/** A jsonb parameter (SQL NULL for null/undefined, as Drizzle writes a nullable jsonb column). */
const jsonb = (v: unknown) =>
  sql`${v === undefined || v === null ? null : JSON.stringify(v)}::jsonb`;
const tstzParam = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Inserts an attempt's row unless it exists, and for a new row counts the attempt on the run and
 * appends its `step.started` (or `step.waiting`) event — one statement (atomic on its own, one
 * round trip: this is on every side-effecting step's path). Returns whether the row is new.
 */
export async function insertAttempt(
  tx: Queryable,
  key: AttemptKey,
  row: {
    status: "running" | "waiting";
    input?: unknown;
    claimToken?: string;
    claimedUntil?: SQL;
  },
  now: Date,
): Promise<boolean> {
  const a = attemptIdentity(key);
  const at = tstzParam(now);
  const [inserted] = await execRows<{ n: number }>(
    tx,
    sql`with ins as (
      insert into run_steps (id, run_id, workspace_id, step_id, path, step_type, attempt, status,
        input, claim_token, claimed_until, created_at, started_at)
      values (${a.id}, ${a.runId}, ${a.workspaceId}, ${a.stepId}, ${a.path}, ${a.stepType},
        ${a.attempt}, ${row.status}::step_status, ${jsonb(row.input)},
        ${row.claimToken ?? null}, ${row.claimToken && row.claimedUntil ? row.claimedUntil : sql`null`},
        ${at}, ${at})
      on conflict do nothing
      returning id
    ), counted as (
      update runs set step_attempts = step_attempts + 1
      where id = ${key.runId} and exists (select 1 from ins)
    ), events as (
      insert into run_events (run_id, workspace_id, type, step_path, data, created_at)
      select ${key.runId}, ${key.workspaceId}, ${row.status === "waiting" ? "step.waiting" : "step.started"},
        ${key.path}, ${jsonb({ stepId: key.stepId, type: key.stepType, attempt: key.attempt })}, ${at}
      from ins
    )
    select count(*)::int as n from ins`,
  );
  return (inserted?.n ?? 0) > 0;
}

/**
 * Moves a started attempt to waiting inside `tx`: the step row, its `step.waiting` event and the
 * run's status commit together with whatever else `tx` writes (a gate's record, see openGate), so
 * no reader sees an open gate on a run that is not yet waiting.
 */
export async function markAttemptWaitingIn(
  tx: Queryable,
  key: AttemptKey,
  now: Date,
  data: Record<string, unknown> = {},
): Promise<void> {
  const moved = await transitionStep(tx, { to: "waiting", where: attemptRow(key) });
  if (moved.won)
    await appendRunEvents(
      tx,
      [
        {
          runId: key.runId,
          workspaceId: key.workspaceId,
          type: "step.waiting",
          stepPath: key.path,
          data: { stepId: key.stepId, attempt: key.attempt, ...data },
        },
      ],
      now,
    );
  await refreshRunStatus(tx, key.runId, now);
}

/** Moves a started attempt to waiting (e.g. a child run was started). */
export async function markAttemptWaiting(
  db: Db,
  key: AttemptKey,
  now: Date,
  data: Record<string, unknown> = {},
): Promise<void> {
  await db.transaction((tx) => markAttemptWaitingIn(tx, key, now, data));
  // Again after the commit: a branch that ended meanwhile could not see this step waiting.
  await refreshRunStatus(db, key.runId, now);
}

export interface AttemptResult {
  status: "completed" | "failed" | "cancelled";
  output?: unknown;
  error?: Record<string, unknown>;
  failureClass?: FailureClass;
  port?: string;
  /** A retry of this step follows (event detail only). */
  willRetry?: boolean;
  /** The failure's Retry-After, kept so a repeated delivery returns the same outcome. */
  retryAfterMs?: number;
}

/**
 * Records an attempt's outcome: compare-and-set from running/waiting, so a late result after the
 * run was cancelled (or a duplicate execution) changes nothing. Returns whether it was recorded.
 */
export async function endAttempt(
  db: Db,
  key: AttemptKey,
  result: AttemptResult,
  now: Date,
  /** Writes that must commit with the outcome (e.g. emitted events into the outbox). */
  inTx?: (tx: Queryable) => Promise<void>,
  /** Recompute running/waiting (only needed while some step of the run waits). */
  refresh = true,
  /** Record only while this delivery still holds the attempt's claim (claimAttempt). */
  claimToken?: string,
): Promise<boolean> {
  const recorded = inTx
    ? await endAttemptInTx(db, key, result, now, inTx, claimToken)
    : await endAttemptAlone(db, key, result, now, claimToken);
  if (refresh) await refreshRunStatus(db, key.runId, now);
  return recorded;
}

/** The transition's columns besides the status (the same for both paths of endAttempt). */
function endColumns(result: AttemptResult, now: Date) {
  return {
    output: result.output ?? null,
    error: result.error ?? null,
    failureClass: result.failureClass ?? null,
    port: result.port ?? null,
    retryAfterMs: result.retryAfterMs ?? null,
    claimedUntil: null,
    finishedAt: now,
  };
}

function endEventType(result: AttemptResult): string {
  return result.status === "completed"
    ? "step.completed"
    : result.status === "failed"
      ? "step.failed"
      : "step.cancelled";
}

/** The end event's data; durationMs is added by the caller (it needs the row's started_at). */
function endEventData(key: AttemptKey, result: AttemptResult): Record<string, unknown> {
  return {
    stepId: key.stepId,
    attempt: key.attempt,
    ...(result.port ? { port: result.port } : {}),
    ...(result.error
      ? { error: { message: result.error.message, class: result.failureClass } }
      : {}),
    ...(result.willRetry ? { willRetry: true } : {}),
  };
}

/**
 * endAttempt without writes of the caller's: the compare-and-set and its event in ONE statement
 * (the event's durationMs from the moved row's started_at, in milliseconds as JavaScript counts).
 */
async function endAttemptAlone(
  db: Db,
  key: AttemptKey,
  result: AttemptResult,
  now: Date,
  claimToken: string | undefined,
): Promise<boolean> {
  const moved = transitionStepStatement(db, {
    to: result.status,
    from: EXECUTING_STATUSES,
    where: and(attemptRow(key), claimToken ? eq(runSteps.claimToken, claimToken) : undefined),
    set: endColumns(result, now),
    returning: { id: runSteps.id, startedAt: runSteps.startedAt },
  });
  if (!moved) return false;
  const at = tstzParam(now);
  const [row] = await execRows<{ n: number }>(
    db,
    sql`with moved as (${moved}), events as (
      insert into run_events (run_id, workspace_id, type, step_path, data, created_at)
      select ${key.runId}, ${key.workspaceId}, ${endEventType(result)}, ${key.path},
        ${jsonb(endEventData(key, result))} || jsonb_build_object('durationMs',
          (round(extract(epoch from (${at} - moved.started_at)) * 1000))::bigint),
        ${at}
      from moved
    )
    select count(*)::int as n from moved`,
  );
  return (row?.n ?? 0) > 0;
}

async function endAttemptInTx(
  db: Db,
  key: AttemptKey,
  result: AttemptResult,
  now: Date,
  inTx: (tx: Queryable) => Promise<void>,
  claimToken: string | undefined,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows: done } = await transitionStep(tx, {
      to: result.status,
      // A never-started (pending) attempt is not ended here: recordSkips writes those.
      from: EXECUTING_STATUSES,
      where: and(attemptRow(key), claimToken ? eq(runSteps.claimToken, claimToken) : undefined),
      set: endColumns(result, now),
      returning: { id: runSteps.id, startedAt: runSteps.startedAt },
    });
    if (!done.length) return false;
    await inTx(tx);
    const durationMs = done[0]!.startedAt ? now.getTime() - done[0]!.startedAt.getTime() : null;
    await appendRunEvents(
      tx,
      [
        {
          runId: key.runId,
          workspaceId: key.workspaceId,
          type: endEventType(result),
          stepPath: key.path,
          data: { ...endEventData(key, result), durationMs },
        },
      ],
      now,
    );
    return true;
  });
}

export interface SkipRecord {
  stepId: string;
  path: string;
  stepType: string;
  status: Extract<StepStatus, "skipped" | "cancelled">;
  reason: string;
  detail?: string;
}

/** Records skipped (and never-started cancelled) steps in one go. Idempotent. */
export async function recordSkips(
  db: Db,
  run: { runId: string; workspaceId: string },
  items: SkipRecord[],
  now: Date,
): Promise<void> {
  if (!items.length) return;
  await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(runSteps)
      .values(
        items.map((i) => ({
          id: `${run.runId}:${i.path}:0`,
          runId: run.runId,
          workspaceId: run.workspaceId,
          stepId: i.stepId,
          path: i.path,
          stepType: i.stepType,
          attempt: 0,
          status: i.status,
          skipReason: i.detail ? `${i.reason}: ${i.detail}` : i.reason,
          createdAt: now,
          finishedAt: now,
        })),
      )
      .onConflictDoNothing()
      .returning({
        path: runSteps.path,
        status: runSteps.status,
        reason: runSteps.skipReason,
        stepId: runSteps.stepId,
      });
    await appendRunEvents(
      tx,
      inserted.map((r) => ({
        runId: run.runId,
        workspaceId: run.workspaceId,
        type: r.status === "skipped" ? "step.skipped" : "step.cancelled",
        stepPath: r.path,
        data: { stepId: r.stepId, reason: r.reason },
      })),
      now,
    );
  });
}

/**
 * Records a whole attempt of an instant step (no I/O of its own: transform, condition, return,
 * emit_event) in ONE transaction: the completed row, its events, the attempt count and any
 * emitted outbox rows. Idempotent like beginAttempt.
 */
export async function recordInstantAttempt(
  db: Db,
  key: AttemptKey,
  args: {
    input: unknown;
    output: unknown;
    port?: string;
    now: Date;
    inTx?: (tx: Queryable) => Promise<void>;
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(runSteps)
      .values({
        ...attemptIdentity(key),
        status: "completed",
        input: args.input ?? null,
        output: args.output ?? null,
        port: args.port ?? null,
        createdAt: args.now,
        startedAt: args.now,
        finishedAt: args.now,
      })
      .onConflictDoNothing()
      .returning({ id: runSteps.id });
    if (!inserted.length) return false;
    await tx.execute(
      sql`update runs set step_attempts = step_attempts + 1 where id = ${key.runId}`,
    );
    if (args.inTx) await args.inTx(tx);
    const data = { stepId: key.stepId, type: key.stepType, attempt: key.attempt };
    await appendRunEvents(
      tx,
      [
        {
          runId: key.runId,
          workspaceId: key.workspaceId,
          type: "step.started",
          stepPath: key.path,
          data,
        },
        {
          runId: key.runId,
          workspaceId: key.workspaceId,
          type: "step.completed",
          stepPath: key.path,
          data: { ...data, durationMs: 0, ...(args.port ? { port: args.port } : {}) },
        },
      ],
      args.now,
    );
    return true;
  });
}
