import "server-only";
import { and, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import { proposals, workflows } from "@/db/schema";
import { ListProposalsInput, type ProposalListItem } from "@/lib/schemas/proposals";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { toListItem } from "./proposal-view";

/** Proposals of the workspace, newest first, optionally for one workflow and some statuses. */
export async function listProposals({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<{ items: ProposalListItem[]; nextCursor: string | null }> {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListProposalsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Proposal list");
  const { workflowId, status, cursor, limit } = parsed.data;
  const where: SQL[] = [eq(proposals.workspaceId, ws.id)];
  if (workflowId) where.push(eq(proposals.workflowId, workflowId));
  if (status?.length) where.push(inArray(proposals.status, status));
  if (cursor) {
    const [ts, id] = cursor.split("|");
    const at = new Date(ts ?? "");
    if (!Number.isNaN(at.getTime()) && id)
      where.push(
        or(lt(proposals.createdAt, at), and(eq(proposals.createdAt, at), lt(proposals.id, id)))!,
      );
  }
  const rows = await ctx.db
    .select({ p: proposals, workflowName: workflows.name })
    .from(proposals)
    .innerJoin(workflows, eq(workflows.id, proposals.workflowId))
    .where(and(...where))
    .orderBy(desc(proposals.createdAt), desc(proposals.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => toListItem(r.p, r.workflowName)),
    nextCursor:
      rows.length > limit && last ? `${last.p.createdAt.toISOString()}|${last.p.id}` : null,
  };
}
