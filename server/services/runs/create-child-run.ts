import "server-only";
import { eq } from "drizzle-orm";
import { runs } from "@/db/schema";
import type { Db } from "@/db/client";
import { EVENTS } from "@/inngest/events";
import type { ServiceContext } from "../context";
import { sendInngestMessages } from "../outbox/enqueue-outbox";
import type { AttemptKey } from "../run-state/step-records";
import { createRun, type CreateRunResult } from "./create-run";

/**
 * Creates a run of another workflow as the child of a step (a `subworkflow` step, a loop over a
 * workflow, or an agent's workflow tool). Children live in their parent's slot, so admission does
 * not queue them; the idempotency key makes a retried attempt find the same child. `start: true`
 * also sends the run's start message in the same transaction (a subworkflow step starts its child
 * with a durable invoke instead).
 */
export async function createChildRun(
  ctx: ServiceContext,
  a: {
    parent: AttemptKey;
    rootRunId: string;
    workflowId: string;
    versionId?: string;
    input: unknown;
    idempotencyKey: string;
    start: boolean;
  },
): Promise<CreateRunResult> {
  return ctx.db.transaction(async (tx) => {
    const created = await createRun(tx, ctx, {
      workspaceId: a.parent.workspaceId,
      workflowId: a.workflowId,
      versionId: a.versionId,
      input: a.input,
      trigger: {
        type: "subworkflow",
        id: a.parent.runId,
        payload: { parentRunId: a.parent.runId, stepPath: a.parent.path },
      },
      initiator: { type: "run", id: a.parent.runId },
      parent: { runId: a.parent.runId, stepId: a.parent.stepId, rootRunId: a.rootRunId },
      idempotencyKey: a.idempotencyKey,
    });
    if (a.start && !created.deduplicated) {
      await sendInngestMessages(tx, [
        {
          workspaceId: a.parent.workspaceId,
          topic: "inngest",
          name: EVENTS.runStart,
          payload: { runId: created.run.id, workspaceId: a.parent.workspaceId },
          id: `start_${created.run.id}`,
        },
      ]);
    }
    return created;
  });
}

/** A child run's status and result, for a parent polling it. */
export async function childRunResult(db: Db, runId: string) {
  const [row] = await db
    .select({ status: runs.status, output: runs.output, error: runs.error })
    .from(runs)
    .where(eq(runs.id, runId));
  return row ?? null;
}
