import "server-only";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs } from "@/db/schema";
import { EVENTS } from "@/inngest/events";
import { createLogger } from "@/lib/log";
import type { ServiceConfig } from "../context";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { finalizeCancelledRun, finishRun, overdueRunIds } from "../run-state/finish-run";
import { admitQueuedRuns } from "./admission";
import { executionStatusLookup } from "./engine-execution";
import { failOrphanedRuns, type WatchdogOptions } from "./fail-orphaned-runs";

const ABANDONED_SCRIPT_MS = 10 * 60_000;

/**
 * Every minute: time out overdue runs (their executions are stopped), finalize cancel requests the
 * executor never confirmed, fail runs whose engine execution is gone (the watchdog), re-send lost
 * starts, and admit queued runs whose slot freed without a finish (a safety net). The watchdog asks
 * the configured engine (`config.engine`) unless `watchdog` says otherwise.
 */
export async function reapRuns(
  db: Db,
  config: ServiceConfig,
  now: Date,
  watchdog: Partial<WatchdogOptions> = {},
) {
  let timedOut = 0;
  for (const runId of await overdueRunIds(db, now)) {
    const r = await finishRun(
      db,
      config,
      {
        runId,
        status: "timed_out",
        reason: "deadline",
        error: {
          code: "timed_out",
          message: "The run reached its deadline (constraints.timeoutMs)",
        },
        stopExecution: true,
      },
      now,
    );
    if (r.changed) timedOut++;
  }
  const stale = await db
    .select({ id: runs.id, cancelRequestedAt: runs.cancelRequestedAt })
    .from(runs)
    .where(
      and(
        eq(runs.status, "cancel_requested"),
        lt(runs.cancelRequestedAt, new Date(now.getTime() - 60_000)),
      ),
    )
    .limit(100);
  // A script attempt still `running` this long after the request lost its worker (SIGKILL comes
  // 10 s after SIGTERM): nothing is left to wait for.
  for (const r of stale)
    await finalizeCancelledRun(db, config, r.id, now, {
      force: r.cancelRequestedAt!.getTime() < now.getTime() - ABANDONED_SCRIPT_MS,
    });
  const orphans = await failOrphanedRuns(db, config, now, {
    ...watchdog,
    executionStatus: watchdog.executionStatus ?? executionStatusLookup(db, config.engine),
    log: watchdog.log ?? createLogger({ component: "watchdog" }),
  });
  // Admitted runs whose execution never began (a start message lost, an executor that did not know
  // the function yet): send the start again. The first execution to claim the run drives it.
  const stranded = await db
    .select({ id: runs.id, workspaceId: runs.workspaceId })
    .from(runs)
    .where(
      and(
        eq(runs.status, "running"),
        isNull(runs.startedAt),
        isNull(runs.parentRunId),
        lt(runs.updatedAt, new Date(now.getTime() - 120_000)),
      ),
    )
    .limit(100);
  if (stranded.length) {
    await db.transaction((tx) =>
      enqueueOutbox(
        tx,
        stranded.map((r) => ({
          workspaceId: r.workspaceId,
          topic: "inngest" as const,
          name: EVENTS.runStart,
          payload: { runId: r.id, workspaceId: r.workspaceId },
          id: `start_${r.id}_${now.getTime()}`,
        })),
      ),
    );
    for (const r of stranded)
      await db.update(runs).set({ updatedAt: now }).where(eq(runs.id, r.id));
  }
  const queuedWorkspaces = await db
    .selectDistinct({ workspaceId: runs.workspaceId })
    .from(runs)
    .where(eq(runs.status, "queued"))
    .limit(1000);
  let admitted = 0;
  for (const w of queuedWorkspaces) {
    admitted += (
      await db.transaction(async (tx) => admitQueuedRuns(tx, w.workspaceId, config, now))
    ).length;
  }
  return {
    timedOut,
    cancelled: stale.length,
    admitted,
    restarted: stranded.length,
    orphaned: orphans.failed,
    lookupErrors: orphans.lookupErrors,
  };
}
