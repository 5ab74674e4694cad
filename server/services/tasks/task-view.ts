import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs, tasks, users, workflows } from "@/db/schema";
import { INLINE_WORKFLOW_NAME } from "@/lib/schemas/runs";
import type { TaskActor } from "./task-rules";
import { isAssignee, taskRefusal } from "./task-rules";

type TaskRow = typeof tasks.$inferSelect;

/**
 * A task as every transport answers it: what to do, the output fields to report, due and expiry,
 * the outcome, and whether the caller may act on it (and why not).
 */
export function taskView(
  t: TaskRow,
  extra: {
    workflowName: string | null;
    runStatus: string | null;
    finishedByName: string | null;
    actor: TaskActor;
    now: Date;
  },
) {
  const refusal = taskRefusal(t.assignee, extra.actor);
  const dueAt = t.dueAt ?? null;
  return {
    id: t.id,
    runId: t.runId,
    /** Null for a task of an inline run (named "inline", as inline runs are in the runs list). */
    workflowId: t.workflowId,
    workflowName: t.workflowId ? extra.workflowName : INLINE_WORKFLOW_NAME,
    runStatus: extra.runStatus,
    stepId: t.stepId,
    stepPath: t.stepPath,
    status: t.status,
    instructions: t.instructions,
    assignee: t.assignee,
    outputSchema: t.outputSchema ?? null,
    output: t.output ?? null,
    failureReason: t.failureReason,
    onTimeout: t.onTimeout,
    dueAt,
    expiresAt: t.expiresAt,
    isOverdue: t.status === "pending" && dueAt !== null && dueAt.getTime() < extra.now.getTime(),
    createdAt: t.createdAt,
    finishedAt: t.finishedAt,
    finishedBy: t.finishedByType
      ? {
          type: t.finishedByType,
          id: t.finishedById,
          userId: t.finishedByUserId,
          name: extra.finishedByName,
          via: t.finishedVia,
        }
      : null,
    assignedToMe: isAssignee(t.assignee, extra.actor),
    canAct: t.status === "pending" && refusal === null,
    whyNot: t.status !== "pending" ? `This task is ${t.status}` : refusal,
  };
}
export type TaskView = ReturnType<typeof taskView>;

/** Tasks with what their view shows beside them (workflow name, run status, who finished them). */
export function selectTaskRows(db: Queryable) {
  return db
    .select({
      task: tasks,
      workflowName: workflows.name,
      runStatus: runs.status,
      finishedByName: users.name,
    })
    .from(tasks)
    .leftJoin(workflows, eq(workflows.id, tasks.workflowId))
    .leftJoin(runs, eq(runs.id, tasks.runId))
    .leftJoin(users, eq(users.id, tasks.finishedByUserId));
}

export function viewOfRow(
  row: Awaited<ReturnType<typeof selectTaskRows>>[number],
  actor: TaskActor,
  now: Date,
): TaskView {
  const { task, ...names } = row;
  return taskView(task, { ...names, actor, now });
}
