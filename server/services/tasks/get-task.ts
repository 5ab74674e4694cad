import "server-only";
import { and, eq } from "drizzle-orm";
import { tasks } from "@/db/schema";
import { TaskRef } from "@/lib/schemas/tasks";
import { fromZodError, NotFoundError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { taskActor } from "./task-rules";
import { selectTaskRows, viewOfRow } from "./task-view";

/** One task of the workspace (any member may read it; acting on it is for assignees). */
export async function getTask({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = TaskRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const [row] = await selectTaskRows(ctx.db).where(
    and(eq(tasks.id, parsed.data.taskId), eq(tasks.workspaceId, ws.id)),
  );
  if (!row) throw new NotFoundError("Task", parsed.data.taskId);
  const actor = await taskActor(ctx.db, ctx, ws);
  return viewOfRow(row, actor, ctx.now());
}
