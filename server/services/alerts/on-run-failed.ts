import "server-only";
import { and, eq } from "drizzle-orm";
import { runs, workflows } from "@/db/schema";
import type { OutboxRow } from "../outbox/relay-outbox";
import type { ServiceContext } from "../context";
import { runtimeServiceContext } from "../step-execution/runtime";
import { loadWorkflowAlerts } from "./alert-settings";
import { recordAlert } from "./record-alert";
import { ERROR_WORKFLOW_INITIATOR, startErrorWorkflow } from "./start-error-workflow";

/**
 * Outbox hook (server/boot.ts workflowEventHooks): a run's `run.failed` system event — committed
 * with the failure, delivered after it, at least once — records a failure alert and starts the
 * workflow's error workflow. Test runs publish no system events, so they never get here.
 */
export async function alertsEventHook(row: OutboxRow): Promise<void> {
  if (!row.workspaceId || row.topic !== "event") return;
  const p = row.payload as { name?: string; source?: { runId?: unknown; system?: unknown } };
  if (p.name !== "run.failed" || p.source?.system !== true) return;
  if (typeof p.source.runId !== "string") return;
  await onRunFailed(await runtimeServiceContext(row.workspaceId), p.source.runId);
}

export async function onRunFailed(ctx: ServiceContext, runId: string): Promise<void> {
  const workspaceId = ctx.workspace!.id;
  const [run] = await ctx.db
    .select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.workspaceId, workspaceId)));
  if (!run?.workflowId || run.isTest) return;
  const [wf] = await ctx.db
    .select({ name: workflows.name })
    .from(workflows)
    .where(and(eq(workflows.id, run.workflowId), eq(workflows.workspaceId, workspaceId)));
  const name = wf?.name ?? run.workflowId;
  const message = typeof run.error?.message === "string" ? run.error.message : run.status;
  await recordAlert(
    ctx.db,
    {
      workspaceId,
      kind: "run_failed",
      subjectId: run.workflowId,
      workflowId: run.workflowId,
      runId: run.id,
      occurrenceKey: run.id,
      summary:
        `Workflow "${name}" run ${run.status === "timed_out" ? "timed out" : "failed"}: ${message}`.slice(
          0,
          500,
        ),
      detail: { status: run.status, version: run.version },
    },
    ctx.now(),
  );

  // Never recursive: a handler's own failure starts no handler (self-reference is refused on save).
  if (run.initiatorType === "system" && run.initiatorId === ERROR_WORKFLOW_INITIATOR) return;
  const { errorWorkflowId } = await loadWorkflowAlerts(ctx.db, workspaceId, run.workflowId);
  if (!errorWorkflowId || errorWorkflowId === run.workflowId) return;
  const started = await startErrorWorkflow(ctx, run, errorWorkflowId, name);
  if ("refused" in started)
    ctx.log.warn("error workflow not started", {
      runId: run.id,
      errorWorkflowId,
      reason: started.refused,
    });
}
