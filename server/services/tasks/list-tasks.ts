import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { tasks } from "@/db/schema";
import { ListTasksInput } from "@/lib/schemas/tasks";
import { fromZodError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { assignedTo, taskActor } from "./task-rules";
import { selectTaskRows, viewOfRow } from "./task-view";

/** The due date a list sorts by: `due` when the step set one, else the expiry. */
const sortAt = sql<Date>`coalesce(${tasks.dueAt}, ${tasks.expiresAt})`;

/**
 * Tasks of the workspace, soonest due first (then by id), cursor-paged: "mine" = assigned to the
 * caller by user, role or API token — the queue of a person or an agent (MCP `current_tasks`).
 */
export async function listTasks({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListTasksInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  const { mine, status, limit, cursor } = parsed.data;
  const actor = await taskActor(ctx.db, ctx, ws);
  const where = [eq(tasks.workspaceId, ws.id), inArray(tasks.status, status)];
  if (mine) where.push(assignedTo(actor));
  if (cursor) {
    const [ts, id] = cursor.split("|");
    const at = new Date(ts ?? "");
    if (Number.isNaN(at.getTime()) || !id)
      throw new ValidationError("cursor is invalid", [
        { path: ["cursor"], message: "Pass back nextCursor from the previous page" },
      ]);
    const iso = at.toISOString();
    where.push(
      sql`(${sortAt} > ${iso}::timestamptz or (${sortAt} = ${iso}::timestamptz and ${tasks.id} > ${id}))`,
    );
  }
  const rows = await selectTaskRows(ctx.db)
    .where(and(...where))
    .orderBy(asc(sortAt), asc(tasks.id))
    .limit(limit + 1);
  const now = ctx.now();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => viewOfRow(r, actor, now)),
    nextCursor:
      rows.length > limit && last
        ? `${(last.task.dueAt ?? last.task.expiresAt).toISOString()}|${last.task.id}`
        : null,
  };
}
