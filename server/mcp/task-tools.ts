import "server-only";
import { CompleteTaskInput, FailTaskInput, ListTasksInput } from "@/lib/schemas/tasks";
import { completeTask } from "../services/tasks/complete-task";
import { failTask } from "../services/tasks/fail-task";
import { listTasks } from "../services/tasks/list-tasks";
import { READ, type ToolKit } from "./tool-kit";

/** The molecule protocol's current/advance: "which work is mine now" and "I finished it". */
export function registerTaskTools({ tool, ctx }: ToolKit): void {
  tool(
    "current_tasks",
    {
      title: "My open tasks",
      description:
        "Tasks waiting for this token — assigned to the token itself, its creator, or its role — soonest due first. Each has `instructions` (what to do), `outputSchema` (the fields complete_task expects: type, required, enum, description), `dueAt`, `expiresAt` and the run it belongs to. Page with `cursor`.",
      minRole: "viewer",
      annotations: READ,
      input: {
        limit: ListTasksInput.shape.limit,
        cursor: ListTasksInput.shape.cursor,
      },
    },
    (args) => listTasks({ ctx, input: { ...args, mine: true, status: ["pending"] } }),
  );

  tool(
    "complete_task",
    {
      title: "Complete a task",
      description:
        "Reports a task done with its `output` (an object matching the task's outputSchema; refused with the field named otherwise). The run resumes with the output as steps.<step>.output.data. A task completes once: a second completion is refused naming who finished it.",
      minRole: "viewer",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        taskId: CompleteTaskInput.shape.taskId.describe("The task id (task_…) from current_tasks"),
        output: CompleteTaskInput.shape.output.describe("The fields of the task's outputSchema"),
      },
    },
    (args) => completeTask({ ctx, input: args, via: "mcp" }),
  );

  tool(
    "fail_task",
    {
      title: "Fail a task",
      description:
        "Reports that a task cannot be done, with the reason: the step fails with it and the run follows the step's error edge, if any.",
      minRole: "viewer",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        taskId: FailTaskInput.shape.taskId.describe("The task id (task_…) from current_tasks"),
        reason: FailTaskInput.shape.reason.describe("Why the task cannot be done"),
      },
    },
    (args) => failTask({ ctx, input: args, via: "mcp" }),
  );
}
