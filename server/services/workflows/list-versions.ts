import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { users, workflowVersions } from "@/db/schema";
import { WorkflowRef } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "./load-workflow";

/** Version history, newest first, with author names and which one is current. */
export async function listVersions({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = WorkflowRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const wf = await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const rows = await ctx.db
    .select({
      id: workflowVersions.id,
      version: workflowVersions.version,
      hash: workflowVersions.hash,
      source: workflowVersions.source,
      notes: workflowVersions.notes,
      authorType: workflowVersions.authorType,
      authorId: workflowVersions.authorId,
      authorName: users.name,
      restoredFromVersionId: workflowVersions.restoredFromVersionId,
      createdAt: workflowVersions.createdAt,
    })
    .from(workflowVersions)
    .leftJoin(
      users,
      and(eq(workflowVersions.authorType, "user"), eq(users.id, workflowVersions.authorId)),
    )
    .where(and(eq(workflowVersions.workflowId, wf.id), eq(workflowVersions.workspaceId, ws.id)))
    .orderBy(
      desc(workflowVersions.major),
      desc(workflowVersions.minor),
      desc(workflowVersions.patch),
    );
  return rows.map((r) => ({ ...r, isCurrent: r.id === wf.currentVersionId }));
}
