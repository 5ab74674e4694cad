import "server-only";
import { CompleteTaskInput, type TaskChannel } from "@/lib/schemas/tasks";
import { fromZodError } from "../../errors";
import type { ServiceContext } from "../context";
import { settleTask } from "./settle-task";

/**
 * Completes a task with its output (checked against the step's outputSchema); the run resumes
 * with it as `steps.<id>.output.data`. Once only: a second completion is a conflict.
 */
export async function completeTask({
  ctx,
  input,
  via,
}: {
  ctx: ServiceContext;
  input: unknown;
  via: TaskChannel;
}) {
  const parsed = CompleteTaskInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Completion");
  return settleTask(
    ctx,
    parsed.data.taskId,
    { status: "completed", output: parsed.data.output },
    via,
  );
}
