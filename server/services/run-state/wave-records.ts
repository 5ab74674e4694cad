import "server-only";
import { sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Db, Queryable } from "@/db/client";
import { runSteps } from "@/db/schema";
import type { FailureClass } from "@/lib/workflow";
import { appendRunEvents } from "../runs/run-events";
import type { SkipRecord } from "./step-records";

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

/** What a wave still has to write on the run: its attempt count and its run events. */
export interface WaveTail {
  attempts: number;
  events: Parameters<typeof appendRunEvents>[1];
}

/**
 * recordWave's writes inside a caller's transaction (the plan or the finish of a run). With
 * `tail`, the run's attempt counter and the run events are left to the caller, which folds them
 * into its own run update and event insert (finishRun: two statements fewer, issue 28).
 */
export async function writeWave(
  tx: Queryable,
  run: { runId: string; workspaceId: string },
  items: WaveRecord[],
  now: Date,
  tail?: WaveTail,
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
  if (tail) {
    tail.attempts += attempts;
    tail.events.push(...events);
    return;
  }
  await writeWaveTail(tx, run.runId, { attempts, events }, now);
}

/** The attempt counter and run events of a wave (writeWave's, or a caller's leftover tail). */
export async function writeWaveTail(
  tx: Queryable,
  runId: string,
  tail: WaveTail,
  now: Date,
): Promise<void> {
  if (tail.attempts)
    await tx.execute(
      sql`update runs set step_attempts = step_attempts + ${tail.attempts} where id = ${runId}`,
    );
  await appendEventsChunked(tx, tail.events, now);
}

/** Run events as multi-row inserts of at most WAVE_CHUNK rows. */
export async function appendEventsChunked(
  tx: Queryable,
  events: WaveTail["events"],
  now: Date,
): Promise<void> {
  for (let from = 0; from < events.length; from += WAVE_CHUNK)
    await appendRunEvents(tx, events.slice(from, from + WAVE_CHUNK), now);
}
