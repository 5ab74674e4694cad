import "server-only";
import { and, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs } from "@/db/schema";
import type { Logger } from "@/lib/log";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";
import type { ServiceConfig } from "../context";
import { finishRun } from "../run-state/finish-run";
import { engineLabel, type ExecutionStatusLookup } from "./engine-execution";

/** A run and its execution must both have been quiet this long before the watchdog judges. */
export const WATCHDOG_GRACE_MS = 2 * 60_000;
/** Executions looked up per pass. */
export const WATCHDOG_BATCH = 100;

export interface WatchdogOptions {
  executionStatus: ExecutionStatusLookup;
  log: Logger;
  graceMs?: number;
  batch?: number;
}

/**
 * The watchdog: a run still `running`/`waiting` whose engine execution ended or is gone has
 * nothing left to move it on, so it fails with a reason that says so. Only runs idle past the
 * grace period are looked at (a finishing run writes its outcome just before its execution
 * ends), picked at random so a backlog of long waits cannot hide the rest. Runs that never got
 * an execution are the reaper's stranded starts; a failed lookup never fails a run.
 */
export async function failOrphanedRuns(
  db: Db,
  config: ServiceConfig,
  now: Date,
  o: WatchdogOptions,
): Promise<{ checked: number; failed: number; lookupErrors: number }> {
  const graceMs = o.graceMs ?? WATCHDOG_GRACE_MS;
  const idleSince = new Date(now.getTime() - graceMs);
  const candidates = await db
    .select({ id: runs.id, status: runs.status, executionId: runs.inngestRunId })
    .from(runs)
    .where(
      and(
        inArray(runs.status, [...EXECUTING_STATUSES]),
        isNotNull(runs.inngestRunId),
        lt(runs.updatedAt, idleSince),
      ),
    )
    .orderBy(sql`random()`)
    .limit(o.batch ?? WATCHDOG_BATCH);
  const engine = engineLabel(config.engine);
  const errors: { runId: string; executionId: string; err: string }[] = [];
  let failed = 0;
  for (const run of candidates) {
    const executionId = run.executionId!;
    let found;
    try {
      found = await o.executionStatus(executionId);
    } catch (e) {
      errors.push({ runId: run.id, executionId, err: (e as Error).message });
      continue;
    }
    if (found.state === "running") continue;
    // An execution that ended only just now may still be finishing the run (its failure handler).
    if (found.state === "ended" && found.endedAt && found.endedAt > idleSince) continue;
    const error =
      found.state === "ended"
        ? {
            code: "engine_execution_ended",
            class: "internal",
            message:
              `The run's engine execution ${executionId} on ${engine} ended (${found.status}) ` +
              `while the run was still ${run.status}; nothing was left to continue it.`,
          }
        : {
            code: "engine_execution_missing",
            class: "internal",
            message:
              `The run's engine execution ${executionId} does not exist on ${engine} (deleted, ` +
              `or the run began on another engine); nothing was left to continue it.`,
          };
    const r = await finishRun(
      db,
      config,
      { runId: run.id, status: "failed", reason: error.code, error },
      now,
    );
    if (r.changed) {
      failed++;
      o.log.warn("watchdog failed a run whose execution is gone", {
        runId: run.id,
        executionId,
        reason: error.code,
      });
    }
  }
  if (errors.length)
    o.log.warn("watchdog could not look up executions; their runs were left alone", {
      engine,
      count: errors.length,
      first: errors[0],
    });
  return { checked: candidates.length, failed, lookupErrors: errors.length };
}
