import "server-only";
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  alerts,
  approvalDecisions,
  approvals,
  executorExecutions,
  runs,
  runSteps,
  scheduleTicks,
  webhookInbox,
} from "@/db/schema";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { pruneRepositoryCaches } from "@/server/repository/repository-cache";
import { pruneAuthThrottles } from "../auth-throttle/counters";
import { pruneOutbox } from "../outbox/relay-outbox";
import { pruneSessions } from "../sessions/prune-sessions";
import { recordPruned } from "../history/record-pruned";

/**
 * Daily: runs older than the run retention, step rows older than the step retention, alert
 * occurrences older than the run retention, delivered outbox messages, expired sessions, stale auth throttle counters, and repository caches idle for
 * `days.repositoryCache` (when a cache root is given).
 */
export async function applyRetention(
  db: Db,
  at: Date,
  days: { runs: number; steps: number; repositoryCache?: number },
  repositoryCacheRoot?: string,
) {
  const now = at.getTime();
  const runCutoff = new Date(now - days.runs * 86_400_000);
  const stepCutoff = new Date(now - days.steps * 86_400_000);
  const oldRuns = and(
    inArray(runs.status, [...TERMINAL_RUN_STATUSES]),
    lt(runs.finishedAt, runCutoff),
  );
  const deletedRuns = await db.transaction(async (tx) => {
    // Approval decisions go with their runs; the history chain is told first (same transaction).
    await recordPruned(
      tx,
      "approval_decision",
      tx
        .select({ workspaceId: approvalDecisions.workspaceId, id: approvalDecisions.id })
        .from(approvalDecisions)
        .innerJoin(approvals, eq(approvals.id, approvalDecisions.approvalId))
        .where(inArray(approvals.runId, tx.select({ id: runs.id }).from(runs).where(oldRuns))),
      at,
    );
    return tx.delete(runs).where(oldRuns).returning({ id: runs.id });
  });
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
  // Alert occurrences (sent and suppressed) follow the run retention: the rate-limit window that
  // reads them is hours long, and the runs they link to are gone after it anyway.
  await db.delete(alerts).where(lt(alerts.createdAt, runCutoff));
  // The embedded executor keeps its own history; finished executions follow the step retention.
  await db
    .delete(executorExecutions)
    .where(
      and(
        inArray(executorExecutions.status, ["completed", "failed", "cancelled"]),
        lt(executorExecutions.endedAt, stepCutoff),
      ),
    );
  // Repository caches (bare clones under the data directory) no run has used for a while.
  const repositoryCaches =
    repositoryCacheRoot && days.repositoryCache
      ? await pruneRepositoryCaches(
          repositoryCacheRoot,
          new Date(now - days.repositoryCache * 86_400_000),
        )
      : 0;
  return { runs: deletedRuns.length, steps: deletedSteps.length, repositoryCaches };
}
