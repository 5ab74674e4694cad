import "server-only";
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import { EVENTS } from "@/inngest/events";
import { enqueueOutbox } from "@/server/services/outbox/enqueue-outbox";
import { runs, runSteps, executorRuns, scheduleTicks, webhookInbox } from "@/db/schema";
import {
  finalizeCancelledRun,
  finishRun,
  overdueRunIds,
} from "@/server/services/run-state/finish-run";
import { pruneOutbox } from "@/server/services/outbox/relay-outbox";
import { pruneSessions } from "@/server/services/sessions/prune-sessions";
import { pruneAuthThrottles } from "@/server/services/auth-throttle/counters";
import { admitQueuedRuns } from "@/server/services/runs/admission";
import { env } from "@/env";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { engineNow, engineRuntime } from "./runtime";

const ABANDONED_SCRIPT_MS = 10 * 60_000;

/**
 * Every minute: time out overdue runs (their executions are stopped), finalize cancel requests the
 * executor never confirmed, and admit queued runs whose slot freed without a finish (a safety net).
 */
export async function reapRunsBody() {
  const { db, config } = await engineRuntime();
  const now = engineNow();
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
  return { timedOut, cancelled: stale.length, admitted, restarted: stranded.length };
}

/**
 * Daily: runs older than the run retention, step rows older than the step retention, delivered
 * outbox messages, expired sessions, stale auth throttle counters.
 */
export async function retentionBody() {
  const { db } = await engineRuntime();
  const now = engineNow().getTime();
  const runCutoff = new Date(now - env.SLUICE_RUN_RETENTION_DAYS * 86_400_000);
  const stepCutoff = new Date(now - env.SLUICE_STEP_RETENTION_DAYS * 86_400_000);
  const deletedRuns = await db
    .delete(runs)
    .where(and(inArray(runs.status, [...TERMINAL_RUN_STATUSES]), lt(runs.finishedAt, runCutoff)))
    .returning({ id: runs.id });
  const deletedSteps = await db
    .delete(runSteps)
    .where(
      and(
        lt(runSteps.createdAt, stepCutoff),
        inArray(
          runSteps.runId,
          db
            .select({ id: runs.id })
            .from(runs)
            .where(inArray(runs.status, [...TERMINAL_RUN_STATUSES])),
        ),
      ),
    )
    .returning({ id: runSteps.id });
  await pruneOutbox(db, new Date(now - 7 * 86_400_000));
  await pruneSessions(db, new Date(now));
  // Throttle counters past their forget window throttle nothing any more.
  await pruneAuthThrottles(db, new Date(now));
  // Schedule tick history follows the run retention; an old claim no longer guards anything.
  await db.delete(scheduleTicks).where(lt(scheduleTicks.tick, runCutoff));
  // Webhook inbox rows follow it too: once their run may be gone, a repeated delivery must not be
  // answered with a dead run id (admitted and failed rows only; accepted ones are still pending).
  await db
    .delete(webhookInbox)
    .where(
      and(
        inArray(webhookInbox.status, ["admitted", "failed"]),
        lt(webhookInbox.createdAt, runCutoff),
      ),
    );
  // The embedded executor keeps its own history; finished executions follow the step retention.
  await db
    .delete(executorRuns)
    .where(
      and(
        inArray(executorRuns.status, ["completed", "failed", "cancelled"]),
        lt(executorRuns.endedAt, stepCutoff),
      ),
    );
  return { runs: deletedRuns.length, steps: deletedSteps.length };
}
