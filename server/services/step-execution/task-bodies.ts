import "server-only";
import { parseDuration, type StepConfig, type TemplateContext } from "@/lib/workflow";
import { closeTask, openTask, taskFinishedStatus } from "@/server/services/run-state/task-gate";
import { endAttempt, type AttemptKey } from "@/server/services/run-state/step-records";
import { failStep, message, resolve } from "./step-bodies";
import { runtimeNow, stepRuntime } from "./runtime";

/**
 * Server-side bodies of the `task` step (each runs inside one durable step), like the approval's:
 * open the task record, check for an outcome recorded before the wait was registered, and close
 * the step from the record once the wait ends.
 */

export async function openTaskBody(a: {
  key: AttemptKey;
  workflowId: string | null;
  config: unknown;
  context: TemplateContext;
  deadline: number;
}) {
  const { db } = await stepRuntime();
  let c: StepConfig<"task">;
  try {
    c = resolve("task", a.config, a.context) as StepConfig<"task">;
  } catch (e) {
    return failStep(a.key, `The task's config is invalid after resolving templates: ${message(e)}`);
  }
  const now = runtimeNow();
  const wanted = now.getTime() + parseDuration(c.timeout);
  const expiresAt = new Date(Math.min(wanted, a.deadline));
  const opened = await openTask(db, {
    key: a.key,
    workflowId: a.workflowId,
    instructions: c.instructions,
    assignee: c.assignee,
    outputSchema: c.outputSchema ?? null,
    onTimeout: c.onTimeout,
    dueAt: c.due ? new Date(now.getTime() + parseDuration(c.due)) : null,
    expiresAt,
    now,
  });
  return {
    taskId: opened.taskId,
    expiresAt: expiresAt.toISOString(),
    cappedByDeadline: wanted > a.deadline,
  };
}

export async function checkTaskBody(a: { taskId: string }) {
  const { db } = await stepRuntime();
  const finished = await taskFinishedStatus(db, a.taskId);
  return finished ? { finished } : null;
}

export async function closeTaskBody(a: {
  key: AttemptKey;
  taskId: string;
  cappedByDeadline: boolean;
}) {
  const { db } = await stepRuntime();
  const now = runtimeNow();
  const outcome = await closeTask(db, { taskId: a.taskId, now });
  const meta = {
    taskId: a.taskId,
    finishedBy: outcome.finishedBy,
    finishedAt: outcome.finishedAt,
    timedOut: outcome.timedOut,
  };
  if (outcome.timedOut && a.cappedByDeadline) {
    await endAttempt(
      db,
      a.key,
      {
        status: "cancelled",
        error: { message: "The run reached its deadline while waiting for the task" },
      },
      now,
    );
    return { deadlineHit: true as const };
  }
  const failure =
    outcome.status === "failed"
      ? {
          message: `Task "${a.key.stepId}" was failed: ${outcome.failureReason ?? "no reason given"}`,
          code: "task_failed",
          reason: outcome.failureReason,
          finishedBy: outcome.finishedBy,
        }
      : outcome.status === "completed" || outcome.onTimeout === "continue"
        ? null
        : {
            message: `Task "${a.key.stepId}" was not completed before its timeout`,
            code: "task_timeout",
          };
  if (failure) {
    await endAttempt(db, a.key, { status: "failed", error: failure, failureClass: "user" }, now);
    return { deadlineHit: false as const, error: { ...failure, class: "user" as const } };
  }
  const output = {
    type: "task",
    data: outcome.status === "completed" ? outcome.output : null,
    meta,
  };
  await endAttempt(db, a.key, { status: "completed", output, port: "success" }, now);
  return { deadlineHit: false as const, output };
}
