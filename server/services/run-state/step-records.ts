import "server-only";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Db, Queryable } from "@/db/client";
import { runSteps } from "@/db/schema";
import type { FailureClass, StepStatus } from "@/lib/workflow";
import { appendRunEvents } from "../runs/run-events";
import { refreshRunStatus } from "./run-plan";
import { transitionStep } from "./transition";
import { EXECUTING_STATUSES, TERMINAL_STEP_STATUSES } from "@/lib/workflow/status";

export interface AttemptKey {
  runId: string;
  workspaceId: string;
  stepId: string;
  path: string;
  stepType: string;
  attempt: number;
}

/** The columns that identify an attempt's row (its id is stable: re-inserts conflict). */
function attemptIdentity(key: AttemptKey) {
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
  await db.transaction((tx) =>
    insertAttempt(tx, key, { status: args.status ?? "running", input: args.input }, args.now),
  );
  if (args.refresh !== false) await refreshRunStatus(db, key.runId, args.now);
}

/**
 * Inserts an attempt's row unless it exists, and for a new row counts the attempt on the run and
 * appends its `step.started` (or `step.waiting`) event. Returns whether the row is new.
 */
async function insertAttempt(
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
  const inserted = await tx
    .insert(runSteps)
    .values({
      ...attemptIdentity(key),
      status: row.status,
      input: row.input ?? null,
      ...(row.claimToken
        ? { claimToken: row.claimToken, claimedUntil: row.claimedUntil as unknown as Date }
        : {}),
      createdAt: now,
      startedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: runSteps.id });
  if (!inserted.length) return false;
  await tx.execute(sql`update runs set step_attempts = step_attempts + 1 where id = ${key.runId}`);
  await appendRunEvents(
    tx,
    [
      {
        runId: key.runId,
        workspaceId: key.workspaceId,
        type: row.status === "waiting" ? "step.waiting" : "step.started",
        stepPath: key.path,
        data: { stepId: key.stepId, type: key.stepType, attempt: key.attempt },
      },
    ],
    now,
  );
  return true;
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

/** A finished attempt's row, as a repeated delivery of it returns it (claimAttempt). */
export interface RecordedAttempt {
  status: StepStatus;
  output: unknown;
  error: Record<string, unknown> | null;
  failureClass: FailureClass | null;
  port: string | null;
  retryAfterMs: number | null;
}

export type AttemptClaim =
  | { kind: "claimed"; token: string; takeover: boolean }
  | { kind: "recorded"; row: RecordedAttempt };

/**
 * Claims a side-effecting attempt before its effect runs (compare-and-set, SPEC §10: a step body
 * never runs twice for one attempt). Engines deliver a step more than once — real Inngest runs a
 * lone step inline in each of several concurrent discoveries, any engine retries a request whose
 * answer was lost — so the first delivery inserts the row with a claim token and a lease, and:
 * - a delivery that finds the attempt finished gets its recorded result (`recorded`);
 * - one that finds it claimed and the lease alive waits for that result (polling);
 * - one that finds the lease lapsed (the holder's process died, or a row from before claims)
 *   takes the claim over (`takeover`): the effect runs again with the same Idempotency-Key, the
 *   at-least-once case every engine documents.
 * Lease times are the database's clock, so instances with skewed clocks agree.
 */
export async function claimAttempt(
  db: Db,
  key: AttemptKey,
  args: {
    input?: unknown;
    now: () => Date;
    token: string;
    leaseMs: number;
    refresh?: boolean;
    /** Gives up waiting for another holder at this time (ms since the epoch). */
    waitUntil: number;
    pollMs?: number;
  },
): Promise<AttemptClaim> {
  const lease = sql`now() + make_interval(secs => ${args.leaseMs / 1000})`;
  for (;;) {
    const now = args.now();
    const inserted = await db.transaction((tx) =>
      insertAttempt(
        tx,
        key,
        { status: "running", input: args.input, claimToken: args.token, claimedUntil: lease },
        now,
      ),
    );
    if (inserted) {
      if (args.refresh !== false) await refreshRunStatus(db, key.runId, now);
      return { kind: "claimed", token: args.token, takeover: false };
    }
    const id = attemptIdentity(key).id;
    const taken = await db
      .update(runSteps)
      .set({ claimToken: args.token, claimedUntil: lease as unknown as Date })
      .where(
        and(
          eq(runSteps.id, id),
          inArray(runSteps.status, [...EXECUTING_STATUSES]),
          sql`(${runSteps.claimedUntil} is null or ${runSteps.claimedUntil} < now())`,
        ),
      )
      .returning({ id: runSteps.id });
    if (taken.length) return { kind: "claimed", token: args.token, takeover: true };
    const row = await loadRecordedAttempt(db, key);
    if (row && (TERMINAL_STEP_STATUSES as readonly StepStatus[]).includes(row.status))
      return { kind: "recorded", row };
    if (Date.now() > args.waitUntil)
      return {
        kind: "recorded",
        row: {
          status: "failed",
          output: null,
          error: {
            message:
              "Another delivery of this step attempt is still running it; gave up waiting for its result",
          },
          failureClass: "operational",
          port: null,
          retryAfterMs: null,
        },
      };
    await new Promise((r) => setTimeout(r, args.pollMs ?? 100));
  }
}

/** Extends a held claim's lease; false when the claim is no longer this token's. */
export async function renewClaim(
  db: Db,
  key: AttemptKey,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  const rows = await db
    .update(runSteps)
    .set({
      claimedUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` as unknown as Date,
    })
    .where(
      and(
        eq(runSteps.id, attemptIdentity(key).id),
        eq(runSteps.claimToken, token),
        inArray(runSteps.status, [...EXECUTING_STATUSES]),
      ),
    )
    .returning({ id: runSteps.id });
  return rows.length > 0;
}

/** An attempt's recorded outcome columns (undefined when there is no row). */
export async function loadRecordedAttempt(
  db: Db,
  key: AttemptKey,
): Promise<RecordedAttempt | undefined> {
  const [row] = await db
    .select({
      status: runSteps.status,
      output: runSteps.output,
      error: runSteps.error,
      failureClass: runSteps.failureClass,
      port: runSteps.port,
      retryAfterMs: runSteps.retryAfterMs,
    })
    .from(runSteps)
    .where(eq(runSteps.id, attemptIdentity(key).id));
  return row;
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
  const recorded = await db.transaction(async (tx) => {
    const { rows: done } = await transitionStep(tx, {
      to: result.status,
      // A never-started (pending) attempt is not ended here: recordSkips writes those.
      from: EXECUTING_STATUSES,
      where: and(attemptRow(key), claimToken ? eq(runSteps.claimToken, claimToken) : undefined),
      set: {
        output: result.output ?? null,
        error: result.error ?? null,
        failureClass: result.failureClass ?? null,
        port: result.port ?? null,
        retryAfterMs: result.retryAfterMs ?? null,
        claimedUntil: null,
        finishedAt: now,
      },
      returning: { id: runSteps.id, startedAt: runSteps.startedAt },
    });
    if (!done.length) return false;
    if (inTx) await inTx(tx);
    const durationMs = done[0]!.startedAt ? now.getTime() - done[0]!.startedAt.getTime() : null;
    await appendRunEvents(
      tx,
      [
        {
          runId: key.runId,
          workspaceId: key.workspaceId,
          type:
            result.status === "completed"
              ? "step.completed"
              : result.status === "failed"
                ? "step.failed"
                : "step.cancelled",
          stepPath: key.path,
          data: {
            stepId: key.stepId,
            attempt: key.attempt,
            durationMs,
            ...(result.port ? { port: result.port } : {}),
            ...(result.error
              ? { error: { message: result.error.message, class: result.failureClass } }
              : {}),
            ...(result.willRetry ? { willRetry: true } : {}),
          },
        },
      ],
      now,
    );
    return true;
  });
  if (refresh) await refreshRunStatus(db, key.runId, now);
  return recorded;
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

/** One row of a wave (see inngest/run-driver/waves.ts): a skipped step, or a pure step's attempt. */
export type WaveRecord =
  | ({ kind: "skip" } & SkipRecord)
  | {
      kind: "attempt";
      stepId: string;
      path: string;
      stepType: string;
      status: "completed" | "failed";
      /** The resolved config (null when it did not resolve). */
      input: unknown;
      output?: unknown;
      port?: string;
      error?: Record<string, unknown>;
      failureClass?: FailureClass;
    };

/** Rows per multi-row insert (run_steps has 16 columns; Postgres allows 65,535 parameters). */
const WAVE_CHUNK = 1_000;

/**
 * Records a whole wave in ONE transaction: every row the per-step path would write for these
 * skips and attempts (recordSkips, recordInstantAttempt, beginAttempt + endAttempt for a failure),
 * with the same columns and run events, as multi-row inserts. Idempotent like those: a wave
 * re-executed after a crash finds its rows and adds nothing. Rows get creation times a
 * microsecond apart, so lists ordered by creation keep the wave's order.
 */
export async function recordWave(
  db: Db,
  run: { runId: string; workspaceId: string },
  items: WaveRecord[],
  now: Date,
): Promise<void> {
  if (!items.length) return;
  await db.transaction((tx) => writeWave(tx, run, items, now));
}

/** recordWave's writes inside a caller's transaction (the plan or the finish of a run). */
export async function writeWave(
  tx: Queryable,
  run: { runId: string; workspaceId: string },
  items: WaveRecord[],
  now: Date,
): Promise<void> {
  if (!items.length) return;
  const at = (i: number) =>
    sql`${now.toISOString()}::timestamptz + ${i} * interval '1 microsecond'`;
  const inserted = new Set<string>();
  for (let from = 0; from < items.length; from += WAVE_CHUNK) {
    const rows = await tx
      .insert(runSteps)
      .values(
        items.slice(from, from + WAVE_CHUNK).map((item, k): PgInsertValue<typeof runSteps> => {
          const time = at(from + k);
          const common = {
            runId: run.runId,
            workspaceId: run.workspaceId,
            stepId: item.stepId,
            path: item.path,
            stepType: item.stepType,
            createdAt: time,
            finishedAt: time,
          };
          return item.kind === "skip"
            ? {
                ...common,
                id: `${run.runId}:${item.path}:0`,
                attempt: 0,
                status: item.status,
                skipReason: item.detail ? `${item.reason}: ${item.detail}` : item.reason,
              }
            : {
                ...common,
                id: `${run.runId}:${item.path}:1`,
                attempt: 1,
                status: item.status,
                input: item.input ?? null,
                output: item.output ?? null,
                error: item.error ?? null,
                failureClass: item.failureClass ?? null,
                port: item.port ?? null,
                startedAt: time,
              };
        }),
      )
      .onConflictDoNothing()
      .returning({ id: runSteps.id });
    for (const r of rows) inserted.add(r.id);
  }
  const events: Parameters<typeof appendRunEvents>[1] = [];
  let attempts = 0;
  for (const item of items) {
    const base = { runId: run.runId, workspaceId: run.workspaceId, stepPath: item.path };
    if (item.kind === "skip") {
      if (!inserted.has(`${run.runId}:${item.path}:0`)) continue;
      events.push({
        ...base,
        type: item.status === "skipped" ? "step.skipped" : "step.cancelled",
        data: {
          stepId: item.stepId,
          reason: item.detail ? `${item.reason}: ${item.detail}` : item.reason,
        },
      });
      continue;
    }
    if (!inserted.has(`${run.runId}:${item.path}:1`)) continue;
    attempts++;
    const data = { stepId: item.stepId, type: item.stepType, attempt: 1 };
    events.push({ ...base, type: "step.started", data });
    events.push(
      item.status === "completed"
        ? {
            ...base,
            type: "step.completed",
            data: { ...data, durationMs: 0, ...(item.port ? { port: item.port } : {}) },
          }
        : {
            ...base,
            type: "step.failed",
            data: {
              stepId: item.stepId,
              attempt: 1,
              durationMs: 0,
              error: { message: item.error?.message, class: item.failureClass },
            },
          },
    );
  }
  if (attempts)
    await tx.execute(
      sql`update runs set step_attempts = step_attempts + ${attempts} where id = ${run.runId}`,
    );
  for (let from = 0; from < events.length; from += WAVE_CHUNK)
    await appendRunEvents(tx, events.slice(from, from + WAVE_CHUNK), now);
}
