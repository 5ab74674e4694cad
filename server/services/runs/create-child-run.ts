import "server-only";
import { eq, sql } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import { runs } from "@/db/schema";
import type { Db } from "@/db/client";
import { MAX_SUBWORKFLOW_DEPTH, subworkflowDepthMessage } from "@/lib/workflow/run-limits";
import { PreconditionFailedError } from "../../errors";
import type { ServiceContext } from "../context";
import type { AttemptKey } from "../run-state/step-records";
import { createRun, type CreateRunResult } from "./create-run";
import { appendRunEvents } from "./run-events";
import { transitionRun } from "../run-state/transition";

/**
 * Creates a run of another workflow as the child of a step (a `subworkflow` step, a loop over a
 * workflow, or an agent's workflow tool). It goes through admission like any run (planAdmission:
 * within its tree's workspace slot, under its workflow's maxConcurrentRuns, counted in the
 * monthly quota) and is refused past MAX_SUBWORKFLOW_DEPTH. The idempotency key makes a retried
 * attempt find the same child. `start: false`: the parent starts a child admitted at once itself
 * (a durable invoke); a child left `queued` is started by the admission pass that admits it, and
 * the parent waits for its end (`queued` in the result).
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
): Promise<CreateRunResult & { queued: boolean }> {
  return ctx.db.transaction(async (tx) => {
    await assertDepthLeft(tx, a.parent.runId, a.workflowId);
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
      parent: {
        runId: a.parent.runId,
        stepId: a.parent.stepId,
        rootRunId: a.rootRunId,
        startsItself: !a.start,
      },
      idempotencyKey: a.idempotencyKey,
    });
    return { ...created, queued: created.run.status === "queued" };
  });
}

/**
 * Refuses a child that would sit deeper than MAX_SUBWORKFLOW_DEPTH below its root, naming the
 * chain of workflows (root first, the refused one last). One recursive read up the parent links.
 */
async function assertDepthLeft(tx: Queryable, parentRunId: string, childWorkflowId: string) {
  const chain = await execRows<{ name: string }>(
    tx,
    sql`with recursive up(id, parent_run_id, workflow_id, hops) as (
        select id, parent_run_id, workflow_id, 0 from runs where id = ${parentRunId}
        union all
        select r.id, r.parent_run_id, r.workflow_id, up.hops + 1 from runs r
          join up on r.id = up.parent_run_id where up.hops <= ${MAX_SUBWORKFLOW_DEPTH}
      )
      select coalesce(w.slug, 'inline') as name from up
        left join workflows w on w.id = up.workflow_id
      order by up.hops desc`,
  );
  // `chain` is the parent and its ancestors: the child would be `chain.length` hops below the root.
  if (chain.length <= MAX_SUBWORKFLOW_DEPTH) return;
  const [child] = await execRows<{ slug: string }>(
    tx,
    sql`select slug from workflows where id = ${childWorkflowId}`,
  );
  throw new PreconditionFailedError(
    subworkflowDepthMessage(MAX_SUBWORKFLOW_DEPTH, [
      ...chain.map((r) => r.name),
      child?.slug ?? childWorkflowId,
    ]),
  );
}

/** A child run's status and result, for a parent polling it. */
export async function childRunResult(db: Db, runId: string) {
  const [row] = await db
    .select({ status: runs.status, output: runs.output, error: runs.error })
    .from(runs)
    .where(eq(runs.id, runId));
  return row ?? null;
}

/**
 * A parent gave up on a child still waiting for admission (its own deadline passed): the child is
 * cancelled (compare-and-set on `queued`) so it never starts for nobody. False when it had started.
 */
export async function abandonQueuedChild(db: Db, runId: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const {
      rows: [row],
    } = await transitionRun(tx, {
      id: runId,
      to: "cancelled",
      from: ["queued"],
      set: {
        finishedAt: now,
        updatedAt: now,
        error: {
          code: "parent_deadline",
          message: "Cancelled before it started: its parent run reached its deadline",
        },
      },
      returning: { workspaceId: runs.workspaceId },
    });
    if (!row) return false;
    await appendRunEvents(
      tx,
      [
        {
          runId,
          workspaceId: row.workspaceId,
          type: "run.finished",
          data: { status: "cancelled", reason: "parent_deadline" },
        },
      ],
      now,
    );
    return true;
  });
}
