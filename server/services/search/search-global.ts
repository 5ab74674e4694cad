import "server-only";
import { and, asc, desc, eq, ilike, isNull, or, sql } from "drizzle-orm";
import { runs, workflows } from "@/db/schema";
import { GlobalSearchInput, SEARCH_LIMIT } from "@/lib/schemas/search";
import { INLINE_WORKFLOW_NAME } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { escapeLike } from "../like-pattern";

/**
 * The command palette's jump-to search: workflows by id, name or slug, and runs by id (a prefix
 * is enough, ids are long) or by their workflow's name. At most SEARCH_LIMIT of each, best match
 * first (exact id or name, then names that start with the text, then the newest). Test runs are
 * left out, as in run.list.
 */
export async function searchGlobal({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = GlobalSearchInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Search");
  const q = parsed.data.q;
  const lower = q.toLowerCase();
  const contains = `%${escapeLike(q)}%`;
  const prefix = `${escapeLike(q)}%`;

  const workflowRows = await ctx.db
    .select({ id: workflows.id, name: workflows.name, slug: workflows.slug })
    .from(workflows)
    .where(
      and(
        eq(workflows.workspaceId, ws.id),
        isNull(workflows.deletedAt),
        or(
          eq(workflows.id, lower),
          ilike(workflows.name, contains),
          ilike(workflows.slug, contains),
        ),
      ),
    )
    .orderBy(
      asc(
        sql`case when ${workflows.id} = ${lower} or lower(${workflows.name}) = ${lower} then 0
                 when ${workflows.name} ilike ${prefix} then 1 else 2 end`,
      ),
      desc(workflows.updatedAt),
      desc(workflows.id),
    )
    .limit(SEARCH_LIMIT);

  const runRows = await ctx.db
    .select({
      id: runs.id,
      status: runs.status,
      workflowId: runs.workflowId,
      workflowName: workflows.name,
      createdAt: runs.createdAt,
    })
    .from(runs)
    .leftJoin(workflows, eq(workflows.id, runs.workflowId))
    .where(
      and(
        eq(runs.workspaceId, ws.id),
        eq(runs.isTest, false),
        or(ilike(runs.id, prefix), ilike(workflows.name, contains)),
      ),
    )
    .orderBy(
      asc(sql`case when ${runs.id} = ${lower} then 0 else 1 end`),
      desc(runs.createdAt),
      desc(runs.id),
    )
    .limit(SEARCH_LIMIT);

  return {
    workflows: workflowRows,
    runs: runRows.map((r) => ({ ...r, workflowName: r.workflowName ?? INLINE_WORKFLOW_NAME })),
  };
}
