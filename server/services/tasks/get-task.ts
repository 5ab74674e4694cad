import "server-only";
import { and, eq } from "drizzle-orm";
import { runs, tasks, users, workflows } from "@/db/schema";
import { TaskRef } from "@/lib/schemas/tasks";
import { fromZodError, NotFoundError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { taskActor } from "./task-rules";
import { taskView } from "./task-view";

/** One task of the workspace (any member may read it; acting on it is for assignees). */
export async function getTask({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = TaskRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const [row] = await ctx.db
    .select({
      task: tasks,
      workflowName: workflows.name,
      runStatus: runs.status,
      finishedByName: users.name,
    })
    .from(tasks)
    .leftJoin(workflows, eq(workflows.id, tasks.workflowId))
    .leftJoin(runs, eq(runs.id, tasks.runId))
    .leftJoin(users, eq(users.id, tasks.finishedByUserId))
    .where(and(eq(tasks.id, parsed.data.taskId), eq(tasks.workspaceId, ws.id)));
  if (!row) throw new NotFoundError("Task", parsed.data.taskId);
  const actor = await taskActor(ctx.db, ctx, ws);
  return taskView(row.task, {
    workflowName: row.workflowName,
    runStatus: row.runStatus,
    finishedByName: row.finishedByName,
    actor,
    now: ctx.now(),
  });
}
