import "server-only";
import { and, arrayContains, desc, eq, ilike, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { workflows, workflowVersions } from "@/db/schema";
import { ListWorkflowsInput } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { escapeLike } from "../like-pattern";

/**
 * Workflows of the workspace, most recently updated first, with search over name, slug and
 * description, tag/enabled filters, and keyset pagination on (updated_at, id).
 */
export async function listWorkflows({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListWorkflowsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  const { search, tag, enabled, status, limit, cursor } = parsed.data;
  const where: (SQL | undefined)[] = [
    eq(workflows.workspaceId, ws.id),
    isNull(workflows.deletedAt),
  ];
  if (search) {
    const q = `%${escapeLike(search)}%`;
    where.push(
      or(ilike(workflows.name, q), ilike(workflows.slug, q), ilike(workflows.description, q)),
    );
  }
  if (tag) where.push(arrayContains(workflows.tags, [tag]));
  if (enabled !== undefined) where.push(eq(workflows.isEnabled, enabled));
  if (status === "published") where.push(sql`${workflows.currentVersionId} is not null`);
  if (status === "draft_only") where.push(sql`${workflows.currentVersionId} is null`);
  if (status === "unpublished_changes")
    where.push(
      sql`(${workflows.draftHash} is null or ${workflows.draftHash} is distinct from ${workflowVersions.hash})`,
    );
  if (cursor) {
    const [ts, id] = cursor.split("|");
    const at = new Date(ts ?? "");
    if (!Number.isNaN(at.getTime()) && id)
      where.push(
        or(lt(workflows.updatedAt, at), and(eq(workflows.updatedAt, at), lt(workflows.id, id))),
      );
  }
  const rows = await ctx.db
    .select({
      id: workflows.id,
      name: workflows.name,
      slug: workflows.slug,
      description: workflows.description,
      tags: workflows.tags,
      isEnabled: workflows.isEnabled,
      updatedAt: workflows.updatedAt,
      draftUpdatedAt: workflows.draftUpdatedAt,
      draftHash: workflows.draftHash,
      currentHash: workflowVersions.hash,
      currentVersion: workflowVersions.version,
      publishedAt: workflowVersions.createdAt,
      stepCount: sql<number>`coalesce(jsonb_array_length(case when jsonb_typeof(${workflows.draft}->'steps') = 'array' then ${workflows.draft}->'steps' end), 0)`,
    })
    .from(workflows)
    .leftJoin(workflowVersions, eq(workflowVersions.id, workflows.currentVersionId))
    .where(and(...where))
    .orderBy(desc(workflows.updatedAt), desc(workflows.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ draftHash, currentHash, ...r }) => ({
      ...r,
      hasDraftChanges: !draftHash || draftHash !== currentHash,
    })),
    nextCursor: rows.length > limit && last ? `${last.updatedAt.toISOString()}|${last.id}` : null,
  };
}
