import "server-only";
import {
  and,
  desc,
  eq,
  exists,
  gte,
  inArray,
  isNull,
  lt,
  lte,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import { runSteps, runs, users, workflows } from "@/db/schema";
import { INLINE_WORKFLOW_NAME, ListRunsInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";

/**
 * Runs of the workspace, newest first, with filters: workflow (or inline runs only), statuses, trigger, date range,
 * "retrying" (an attempt failed and another is due) and "waiting longer than N minutes".
 */
export async function listRuns({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListRunsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Filters");
  const f = parsed.data;
  const where: (SQL | undefined)[] = [eq(runs.workspaceId, ws.id)];
  if (f.workflowId) where.push(eq(runs.workflowId, f.workflowId));
  if (f.inline) where.push(isNull(runs.workflowId));
  if (f.status?.length) where.push(inArray(runs.status, f.status));
  if (f.trigger) where.push(eq(runs.triggerType, f.trigger));
  if (f.from) where.push(gte(runs.createdAt, f.from));
  if (f.to) where.push(lte(runs.createdAt, f.to));
  if (f.tests !== "include") where.push(eq(runs.isTest, f.tests === "only"));
  if (f.retrying) {
    where.push(inArray(runs.status, [...EXECUTING_STATUSES]));
    where.push(
      exists(
        ctx.db
          .select({ one: sql`1` })
          .from(runSteps)
          .where(
            and(
              eq(runSteps.runId, runs.id),
              eq(runSteps.status, "failed"),
              eq(runSteps.failureClass, "operational"),
            ),
          ),
      ),
    );
  }
  if (f.waitingLongerThanMinutes) {
    where.push(eq(runs.status, "waiting"));
    where.push(
      lt(runs.updatedAt, new Date(ctx.now().getTime() - f.waitingLongerThanMinutes * 60_000)),
    );
  }
  if (f.cursor) {
    const [ts, id] = f.cursor.split("|");
    const at = new Date(ts ?? "");
    if (!Number.isNaN(at.getTime()) && id)
      where.push(or(lt(runs.createdAt, at), and(eq(runs.createdAt, at), lt(runs.id, id))));
  }
  const rows = await ctx.db
    .select({
      id: runs.id,
      status: runs.status,
      workflowId: runs.workflowId,
      workflowName: workflows.name,
      version: runs.version,
      triggerType: runs.triggerType,
      initiatorType: runs.initiatorType,
      initiatorName: users.name,
      parentRunId: runs.parentRunId,
      isTest: runs.isTest,
      createdAt: runs.createdAt,
      startedAt: runs.startedAt,
      finishedAt: runs.finishedAt,
      updatedAt: runs.updatedAt,
      error: runs.error,
    })
    .from(runs)
    // Left join: inline runs have no workflow (a deleted workflow's runs are deleted with it).
    .leftJoin(workflows, eq(workflows.id, runs.workflowId))
    .leftJoin(users, and(eq(runs.initiatorType, "user"), eq(users.id, runs.initiatorId)))
    .where(and(...where))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(f.limit + 1);
  const page = rows.slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      ...r,
      workflowName: r.workflowName ?? INLINE_WORKFLOW_NAME,
      errorMessage: (r.error as { message?: string } | null)?.message ?? null,
      error: undefined,
    })),
    nextCursor: rows.length > f.limit && last ? `${last.createdAt.toISOString()}|${last.id}` : null,
  };
}
