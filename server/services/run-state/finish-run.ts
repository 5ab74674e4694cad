import "server-only";
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db, Queryable, Tx } from "@/db/client";
import { approvals, proposals, runs, runSteps, tasks, workflows } from "@/db/schema";
import type { TerminalRunStatus } from "@/lib/workflow";
import { INLINE_WORKFLOW_NAME } from "@/lib/schemas/runs";
import { EVENTS } from "@/inngest/events";
import type { ServiceConfig } from "../context";
import { enqueueWorkflowEvents } from "./workflow-events";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { admitQueuedRuns } from "../runs/admission";
import { appendEventsChunked, writeWaveTail, type WaveTail } from "./wave-records";
import {
  ACTIVE_RUN_STATUSES,
  EXECUTING_STATUSES,
  OPEN_PROPOSAL_STATUSES,
  canTransition,
} from "@/lib/workflow/status";
import { transitionApproval, transitionRun, transitionStep, transitionTask } from "./transition";
import { PROCESS_STEP_TYPES } from "@/lib/workflow/step-traits";

export interface FinishArgs {
  runId: string;
  status: TerminalRunStatus;
  output?: unknown;
  error?: Record<string, unknown> | null;
  reason: string;
  /** Ask the durable executor to stop this run's leftover waits (after a halt). */
  stopExecution?: boolean;
  /**
   * Leave a `cancel_requested` run as it is while one of its script attempts is still running
   * (see finalizeCancelledRun); the answer is then `{ changed: false, status: "cancel_requested" }`.
   */
  unlessProcessAlive?: boolean;
}

/** System event names for run outcomes (event triggers listen to these). */
export function runOutcomeEvent(status: TerminalRunStatus): string {
  switch (status) {
    case "completed":
      return "run.completed";
    case "cancelled":
      return "run.cancelled";
    case "failed":
    case "timed_out":
      return "run.failed";
  }
}

/**
 * Ends a run (compare-and-set from an active status, so the first writer wins: a cancel, a
 * timeout and a completion racing each other decide once). In the same transaction: leftover
 * steps, open approvals and open tasks are cancelled, the outcome is appended to the run's history, a system
 * event goes to the outbox, and queued runs of the workspace are admitted into the freed slot.
 */
export async function finishRun(
  db: Db,
  config: ServiceConfig,
  args: FinishArgs,
  now: Date,
  /**
   * Writes that commit with the finish whatever it decides (the rows of the run's last wave). A
   * returned tail (attempt count, run events) is folded into the finish's own run update and
   * event insert, or written apart when the run does not change.
   */
  first?: (tx: Tx, run: { workspaceId: string }) => Promise<void | WaveTail>,
): Promise<{ changed: boolean; status: string }> {
  return db.transaction(async (tx) => {
    // The workflow's name for the outcome event comes with the locked run (one read), and so
    // does whether an open proposal sits on the run's version (shadow runs, issue #29 item 2).
    const [row] = await tx
      .select({
        run: runs,
        wfName: workflows.name,
        wfSlug: workflows.slug,
        shadowWanted: sql<boolean>`exists (select 1 from ${proposals} where ${and(
          eq(proposals.workflowId, runs.workflowId),
          eq(proposals.baseVersionId, runs.versionId),
          inArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
        )})`,
      })
      .from(runs)
      .leftJoin(workflows, eq(workflows.id, runs.workflowId))
      .where(eq(runs.id, args.runId))
      .for("update", { of: runs });
    if (!row) return { changed: false, status: "missing" };
    const { run } = row;
    const tail = first ? await first(tx, run) : undefined;
    const unchanged = async () => {
      if (tail) await writeWaveTail(tx, run.id, tail, now);
      return { changed: false, status: run.status };
    };
    if (!canTransition(run.status, args.status)) return unchanged();
    if (args.unlessProcessAlive && run.status === "cancel_requested") {
      // Under the run row's lock: an attempt that ends after this read finalizes the run itself.
      const [alive] = await tx
        .select({ id: runSteps.id })
        .from(runSteps)
        .where(
          and(
            eq(runSteps.runId, run.id),
            inArray(runSteps.stepType, [...PROCESS_STEP_TYPES]),
            inArray(runSteps.status, [...EXECUTING_STATUSES]),
          ),
        )
        .limit(1);
      if (alive) return unchanged();
    }
    const ended = await transitionRun(tx, {
      id: run.id,
      to: args.status,
      set: {
        output: args.output ?? null,
        error: args.error ?? null,
        finishedAt: now,
        updatedAt: now,
        ...(tail?.attempts ? { stepAttempts: sql`${runs.stepAttempts} + ${tail.attempts}` } : {}),
      },
    });
    if (!ended.won) return unchanged();
    const { rows: left } = await transitionStep(tx, {
      to: "cancelled",
      where: eq(runSteps.runId, run.id),
      set: { finishedAt: now },
      returning: { path: runSteps.path },
    });
    await transitionApproval(tx, {
      to: "cancelled",
      where: eq(approvals.runId, run.id),
      set: { decidedAt: now, decisionReason: `run ${args.status}` },
    });
    await transitionTask(tx, {
      to: "cancelled",
      where: eq(tasks.runId, run.id),
      set: { finishedAt: now, failureReason: `run ${args.status}` },
    });
    await appendEventsChunked(
      tx,
      [
        ...(tail?.events ?? []),
        ...left.map((l) => ({
          runId: run.id,
          workspaceId: run.workspaceId,
          type: "step.cancelled",
          stepPath: l.path,
          data: { reason: "run_ended" },
        })),
        {
          runId: run.id,
          workspaceId: run.workspaceId,
          type: "run.finished",
          data: {
            status: args.status,
            reason: args.reason,
            ...(args.error?.message ? { error: args.error.message } : {}),
          },
        },
      ],
      now,
    );
    // The outcome as a system workflow event (same shape as emitted events: name, data, source),
    // so event triggers and wait_for_event steps can match `data.runId`, `data.status`, ….
    // Test runs (docs/runs.md "Testing while building") trigger nothing.
    if (!run.isTest)
      await enqueueWorkflowEvents(
        tx,
        run.workspaceId,
        [
          {
            id: `sys_${run.id}`,
            name: runOutcomeEvent(args.status),
            data: await runSystemEventData(
              tx,
              run,
              { status: args.status, reason: args.reason },
              { name: row.wfName, slug: row.wfSlug },
            ),
            source: { runId: run.id, system: true },
          },
        ],
        now,
      );
    const messages: Parameters<typeof enqueueOutbox>[1] = [];
    if (args.stopExecution)
      messages.push({
        workspaceId: run.workspaceId,
        topic: "inngest",
        name: EVENTS.runCancel,
        payload: { runId: run.id, workspaceId: run.workspaceId, reason: "run_ended" },
        id: `stop_${run.id}`,
      });
    // Only when a proposal can use it: a function run per finished run cost ~21 statements.
    if (row.shadowWanted && !run.isTest && args.status !== "cancelled")
      messages.push({
        workspaceId: run.workspaceId,
        topic: "inngest",
        name: EVENTS.proposalShadowRun,
        payload: { runId: run.id, workspaceId: run.workspaceId },
        id: `shadow_${run.id}`,
      });
    await enqueueOutbox(tx, messages, now);
    // A finished child frees its workflow's slot (children count towards maxConcurrentRuns).
    await admitQueuedRuns(tx, run.workspaceId, config, now);
    return { changed: true, status: args.status };
  });
}

/**
 * The data of a run's system events (`run.started`, `run.completed`, …): which run of which
 * workflow, its status and the reason it got there.
 */
export async function runSystemEventData(
  tx: Queryable,
  run: Pick<typeof runs.$inferSelect, "id" | "workflowId" | "version" | "parentRunId">,
  outcome: { status: string; reason: string | null },
  /** The workflow's name and slug when the caller already read them (its run query joined them). */
  known?: { name: string | null; slug: string | null },
) {
  const [wf] =
    run.workflowId && known
      ? [known]
      : run.workflowId
        ? await tx
            .select({ name: workflows.name, slug: workflows.slug })
            .from(workflows)
            .where(eq(workflows.id, run.workflowId))
        : [{ name: INLINE_WORKFLOW_NAME, slug: null }];
  return {
    runId: run.id,
    workflowId: run.workflowId,
    workflowSlug: wf?.slug ?? null,
    workflowName: wf?.name ?? null,
    status: outcome.status,
    reason: outcome.reason,
    version: run.version,
    parentRunId: run.parentRunId,
  };
}

/**
 * Ends a `cancel_requested` run as `cancelled` — unless one of its scripts may still be alive: a
 * script that ignores SIGTERM runs until SIGKILL (10 s later), and until then the run stays
 * `cancel_requested` and keeps its admission slot. Called when the durable execution is
 * cancelled, again by the script's attempt once its process is gone, and by the reaper, which
 * passes `force` once the attempt's worker must be dead.
 */
export function finalizeCancelledRun(
  db: Db,
  config: ServiceConfig,
  runId: string,
  now: Date,
  opts: { force?: boolean } = {},
): Promise<{ changed: boolean; status: string }> {
  return finishRun(
    db,
    config,
    {
      runId,
      status: "cancelled",
      reason: "cancel_requested",
      error: { code: "cancelled", message: "The run was cancelled" },
      unlessProcessAlive: !opts.force,
    },
    now,
  );
}

/** Runs whose deadline passed while still active (the reaper times them out). */
export async function overdueRunIds(db: Db, now: Date, limit = 100): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(inArray(runs.status, [...ACTIVE_RUN_STATUSES]), lt(runs.deadlineAt, now)))
    .limit(limit);
  return rows.map((r) => r.id);
}
