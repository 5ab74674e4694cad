import "server-only";
import { and, eq } from "drizzle-orm";
import { tasks, users } from "@/db/schema";
import { EVENTS } from "@/inngest/events";
import type { TaskChannel } from "@/lib/schemas/tasks";
import type { InputSpec } from "@/lib/workflow/definition";
import { resolveRunInput, TASK_OUTPUT_WORDS } from "@/lib/workflow/inputs";
import { jsonProblem } from "@/lib/workflow/json";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { appendRunEvents } from "../runs/run-events";
import { enqueueWorkflowEvents } from "../run-state/workflow-events";
import { transitionTask } from "../run-state/transition";
import { isAssignee, taskActor, taskRefusal } from "./task-rules";
import { selectTaskRows, viewOfRow } from "./task-view";

export type TaskSettlement =
  { status: "completed"; output: Record<string, unknown> } | { status: "failed"; reason: string };

/**
 * The one path that finishes a task (completeTask and failTask call it), in one transaction under
 * the task's row lock: the actor may act (assignee or admin), the task is still pending and not
 * expired — a compare-and-set, so of two completions one wins and the other gets a conflict
 * naming the winner — the output matches the outputSchema, then the outcome is recorded, the run
 * resumes through the outbox, and the audit row is written.
 */
export async function settleTask(
  ctx: ServiceContext,
  taskId: string,
  settlement: TaskSettlement,
  via: TaskChannel,
) {
  const ws = requireRole(ctx, "viewer");
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const [t] = await tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, taskId), eq(tasks.workspaceId, ws.id)))
      .for("update")
      .limit(1);
    if (!t) throw new NotFoundError("Task", taskId);
    const actor = await taskActor(tx, ctx, ws);
    const refusal = taskRefusal(t.assignee, actor);
    if (refusal) throw new ForbiddenError(refusal);
    if (t.status !== "pending") {
      const [by] = t.finishedByUserId
        ? await tx.select({ name: users.name }).from(users).where(eq(users.id, t.finishedByUserId))
        : [];
      const who = by
        ? ` by ${by.name}${t.finishedByType === "token" ? ` (API token ${t.finishedById})` : ""}`
        : "";
      const when = t.finishedAt ? ` at ${t.finishedAt.toISOString()}` : "";
      throw new ConflictError(`Task ${t.id} was already ${t.status}${who}${when}`, {
        code: "ALREADY_FINISHED",
        status: t.status,
        finishedBy: t.finishedByUserId
          ? { type: t.finishedByType, id: t.finishedById, userId: t.finishedByUserId }
          : null,
      });
    }
    if (t.expiresAt.getTime() <= now.getTime())
      throw new ConflictError(`Task ${t.id} expired at ${t.expiresAt.toISOString()}`, {
        code: "EXPIRED",
      });
    let output: unknown = null;
    if (settlement.status === "completed") output = checkOutput(t.outputSchema, settlement.output);
    const done = await transitionTask(tx, {
      id: t.id,
      to: settlement.status,
      set: {
        output,
        failureReason: settlement.status === "failed" ? settlement.reason : null,
        finishedAt: now,
        finishedByType: actor.tokenId ? "token" : "user",
        finishedById: actor.tokenId ?? actor.userId,
        finishedByUserId: actor.userId,
        finishedVia: via,
      },
    });
    if (!done.won) throw new ConflictError(`Task ${t.id} was already finished`);
    await appendRunEvents(
      tx,
      [
        {
          runId: t.runId,
          workspaceId: ws.id,
          type: settlement.status === "completed" ? "task.completed" : "task.failed",
          stepPath: t.stepPath,
          data: {
            taskId: t.id,
            userId: actor.userId,
            via,
            ...(settlement.status === "failed" ? { reason: settlement.reason } : {}),
          },
        },
      ],
      now,
    );
    await enqueueOutbox(
      tx,
      [
        {
          workspaceId: ws.id,
          topic: "inngest",
          name: EVENTS.taskFinished,
          payload: { taskId: t.id, runId: t.runId, status: settlement.status },
          id: `task_finished_${t.id}`,
        },
      ],
      now,
    );
    // The outcome as a system event (`task.completed` / `task.failed`) for event triggers; its
    // source is the run, so the event chain depth applies to runs that tasks start.
    await enqueueWorkflowEvents(
      tx,
      ws.id,
      [
        {
          id: `sys_task_${t.id}`,
          name: settlement.status === "completed" ? "task.completed" : "task.failed",
          data: {
            taskId: t.id,
            runId: t.runId,
            workflowId: t.workflowId,
            stepId: t.stepId,
            status: settlement.status,
            ...(settlement.status === "completed" ? { output } : { reason: settlement.reason }),
            userId: actor.userId,
            via,
          },
          source: { runId: t.runId, system: true },
        },
      ],
      now,
    );
    await recordAudit(tx, ctx, {
      action: settlement.status === "completed" ? "task.complete" : "task.fail",
      targetType: "task",
      targetId: t.id,
      data: {
        runId: t.runId,
        stepId: t.stepId,
        via,
        asAssignee: isAssignee(t.assignee, actor),
        ...(settlement.status === "failed"
          ? { reason: settlement.reason }
          : { outputFields: Object.keys(settlement.output) }),
      },
    });
    const [view] = await selectTaskRows(tx).where(eq(tasks.id, t.id));
    return viewOfRow(view!, actor, now);
  });
}

/**
 * The output against the task's outputSchema (the engine's input rules: types, required, enums,
 * unknown fields refused); free-form JSON when the step declares none.
 */
function checkOutput(schema: Record<string, unknown> | null, output: Record<string, unknown>) {
  if (!schema) {
    const problem = jsonProblem(output);
    if (problem)
      throw new ValidationError(`Task output cannot be stored: ${problem}`, [
        { path: ["output"], message: problem },
      ]);
    return output;
  }
  const resolved = resolveRunInput(schema as Record<string, InputSpec>, output, TASK_OUTPUT_WORDS);
  if (resolved.ok) return resolved.value;
  const [first] = resolved.issues;
  throw new ValidationError(
    `Task output is invalid: ${first!.message}${resolved.issues.length > 1 ? ` (and ${resolved.issues.length - 1} more)` : ""}`,
    resolved.issues.map((i) => ({
      path: i.name ? ["output", i.name] : ["output"],
      message: i.message,
    })),
  );
}
