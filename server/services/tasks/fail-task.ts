import "server-only";
import { FailTaskInput, type TaskChannel } from "@/lib/schemas/tasks";
import { fromZodError } from "../../errors";
import type { ServiceContext } from "../context";
import { settleTask } from "./settle-task";

/**
 * Fails a task with a reason: the step fails (a user failure carrying the reason) and the run
 * follows the step's `error` edge if it has one.
 */
export async function failTask({
  ctx,
  input,
  via,
}: {
  ctx: ServiceContext;
  input: unknown;
  via: TaskChannel;
}) {
  const parsed = FailTaskInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Failure");
  return settleTask(ctx, parsed.data.taskId, { status: "failed", reason: parsed.data.reason }, via);
}
