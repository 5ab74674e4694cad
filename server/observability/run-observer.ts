import "server-only";
import { and, asc, eq, isNotNull } from "drizzle-orm";
import { getDb, type Queryable } from "@/db";
import { afterCommit } from "@/db/after-commit";
import { runs, runSteps } from "@/db/schema";
import { createLogger } from "@/lib/log";
import { isTerminalRunStatus, type RunStatus } from "@/lib/workflow/status";
import { isMetricsEnabled, isTracingEnabled } from "./config";
import { metrics } from "./registry";
import { exportRunTrace, type StepSpan } from "./tracing";
import { installLogTraceIds } from "./log-trace-ids";

/**
 * Run lifecycle → metrics and traces. Hooked where every run status is written
 * (run-state/transition.ts) and where a run starts (run-state/run-plan.ts); acts after the
 * transaction commits (never for a rolled-back one), and not at all while both are off.
 */

const log = createLogger({ component: "observability" });
installLogTraceIds();

/** A run's label for its workflow: inline runs have none. */
export function workflowLabel(workflowId: string | null): string {
  return workflowId ?? "inline";
}

const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);

/** The run row columns an ended run is observed with (RETURNING of the ending update). */
const ENDED = {
  obsId: runs.id,
  obsWorkspaceId: runs.workspaceId,
  obsWorkflowId: runs.workflowId,
  obsTriggerType: runs.triggerType,
  obsStatus: runs.status,
  obsVersion: runs.version,
  obsHash: runs.hash,
  obsParentRunId: runs.parentRunId,
  obsQueuedAt: runs.queuedAt,
  obsStartedAt: runs.startedAt,
  obsFinishedAt: runs.finishedAt,
};
interface EndedRow {
  obsId: string;
  obsWorkspaceId: string;
  obsWorkflowId: string | null;
  obsTriggerType: string;
  obsStatus: RunStatus;
  obsVersion: string;
  obsHash: string;
  obsParentRunId: string | null;
  obsQueuedAt: Date;
  obsStartedAt: Date | null;
  obsFinishedAt: Date | null;
}

/**
 * For transitionRun: when `to` ends runs and metrics or tracing are on, the extra RETURNING
 * columns to ask for, and `take` to split them off the caller's rows (which are returned as asked).
 */
export interface RunEndObserver {
  returning<R extends object>(caller: R): R;
  take<T>(rows: T[]): T[];
}

export function observeRunEnds(tx: Queryable, to: RunStatus | object): RunEndObserver | undefined {
  if (typeof to !== "string" || !isTerminalRunStatus(to)) return undefined;
  if (!isMetricsEnabled() && !isTracingEnabled()) return undefined;
  const keys = Object.keys(ENDED);
  return {
    returning: (caller) => ({ ...caller, ...ENDED }),
    take<T>(rows: T[]): T[] {
      const ended: EndedRow[] = [];
      const own = rows.map((row) => {
        const r = { ...(row as Record<string, unknown>) };
        ended.push(Object.fromEntries(keys.map((k) => [k, r[k]])) as unknown as EndedRow);
        for (const k of keys) delete r[k];
        return r as T;
      });
      if (ended.length) afterCommit(tx, () => void runsEnded(ended));
      return own;
    },
  };
}

async function runsEnded(rows: EndedRow[]): Promise<void> {
  // Decided once, when the run ended (a switch flipped meanwhile does not half-observe it).
  const m = isMetricsEnabled() ? metrics() : undefined;
  const tracing = isTracingEnabled();
  for (const r of rows) {
    const workflow = workflowLabel(r.obsWorkflowId);
    m?.runsFinished.inc({ workflow_id: workflow, trigger: r.obsTriggerType, status: r.obsStatus });
    const end = r.obsFinishedAt ?? new Date();
    if (r.obsStartedAt)
      m?.runDuration.observe(
        { workflow_id: workflow, status: r.obsStatus },
        seconds(r.obsStartedAt, end),
      );
  }
  try {
    const db = await getDb();
    for (const r of rows) {
      const steps = await loadStepSpans(db, r.obsId);
      for (const s of steps)
        m?.stepDuration.observe(
          { step_type: s.stepType, outcome: s.status },
          seconds(s.startedAt, s.finishedAt),
        );
      if (tracing)
        await exportRunTrace(
          {
            runId: r.obsId,
            workspaceId: r.obsWorkspaceId,
            workflowId: r.obsWorkflowId,
            version: r.obsVersion,
            hash: r.obsHash,
            triggerType: r.obsTriggerType,
            status: r.obsStatus,
            parentRunId: r.obsParentRunId,
            startedAt: r.obsStartedAt ?? r.obsQueuedAt,
            finishedAt: r.obsFinishedAt ?? new Date(),
          },
          steps,
        );
    }
  } catch (e) {
    log.warn("could not observe ended runs", { err: e, runIds: rows.map((r) => r.obsId) });
  }
}

/** A run's attempts that ran (skipped steps never started and get no span). */
const MAX_STEP_SPANS = 5_000;

async function loadStepSpans(db: Queryable, runId: string): Promise<StepSpan[]> {
  const rows = await db
    .select({
      stepId: runSteps.stepId,
      path: runSteps.path,
      stepType: runSteps.stepType,
      attempt: runSteps.attempt,
      status: runSteps.status,
      failureClass: runSteps.failureClass,
      error: runSteps.error,
      startedAt: runSteps.startedAt,
      finishedAt: runSteps.finishedAt,
    })
    .from(runSteps)
    .where(and(eq(runSteps.runId, runId), isNotNull(runSteps.startedAt)))
    .orderBy(asc(runSteps.createdAt))
    .limit(MAX_STEP_SPANS);
  return rows.map((r) => ({
    stepId: r.stepId,
    path: r.path,
    stepType: r.stepType,
    attempt: r.attempt,
    status: r.status,
    failureClass: r.failureClass,
    errorMessage: typeof r.error?.message === "string" ? r.error.message : null,
    startedAt: r.startedAt!,
    finishedAt: r.finishedAt ?? r.startedAt!,
  }));
}

/** For loadRunPlan: the run started now (first load of its plan), queued since `queuedAt`. */
export function noteRunStarted(
  tx: Queryable,
  run: { workflowId: string | null; triggerType: string; queuedAt: Date },
  startedAt: Date,
): void {
  if (!isMetricsEnabled()) return;
  afterCommit(tx, () => {
    const m = metrics();
    m.runsStarted.inc({ workflow_id: workflowLabel(run.workflowId), trigger: run.triggerType });
    m.startWait.observe({ trigger: run.triggerType }, seconds(run.queuedAt, startedAt));
  });
}
