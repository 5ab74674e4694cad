import "server-only";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, runSteps } from "@/db/schema";
import type { ErrorWorkflowInput } from "@/lib/schemas/alerts";
import { DomainError } from "../../errors";
import type { ServiceContext } from "../context";
import { createRun } from "../runs/create-run";

/** The initiator id of runs started as an error handler: such a run never starts one itself. */
export const ERROR_WORKFLOW_INITIATOR = "error-workflow";

type RunRow = typeof runs.$inferSelect;

/** The failed run's context, as the handler's input (docs/operations.md "Error workflows"). */
export async function errorWorkflowInput(
  db: Db,
  run: RunRow,
  workflowName: string,
): Promise<ErrorWorkflowInput> {
  const [step] = await db
    .select({ id: runSteps.stepId, type: runSteps.stepType })
    .from(runSteps)
    .where(
      and(
        eq(runSteps.runId, run.id),
        eq(runSteps.workspaceId, run.workspaceId),
        eq(runSteps.status, "failed"),
      ),
    )
    .orderBy(desc(runSteps.finishedAt), desc(runSteps.createdAt))
    .limit(1);
  return {
    runId: run.id,
    workflowId: run.workflowId!,
    workflowName,
    version: run.version,
    failedStep: step ?? null,
    error: run.error ?? null,
    input: run.input,
  };
}

/**
 * Starts the failed run's error workflow through createRun, so admission, quotas and the
 * handler's input rules apply as to any run. Idempotent per failed run (redelivered events start
 * nothing new). A refusal (quota, a disabled or unpublished handler, an input it rejects) is
 * returned, not thrown: the failure event must still be acknowledged.
 */
export async function startErrorWorkflow(
  ctx: ServiceContext,
  run: RunRow,
  handlerId: string,
  workflowName: string,
): Promise<{ runId: string } | { refused: string }> {
  const input = await errorWorkflowInput(ctx.db, run, workflowName);
  try {
    const result = await ctx.db.transaction((tx) =>
      createRun(tx, ctx, {
        workspaceId: run.workspaceId,
        workflowId: handlerId,
        input,
        trigger: { type: "event", id: null, payload: { errorOf: run.id } },
        initiator: { type: "system", id: ERROR_WORKFLOW_INITIATOR },
        accountableUserId: null,
        idempotencyKey: `error-workflow:${run.id}`,
      }),
    );
    return { runId: result.run.id };
  } catch (e) {
    if (e instanceof DomainError) return { refused: e.message };
    throw e;
  }
}
