import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflows, workflowVersions } from "@/db/schema";
import { NotFoundError } from "../../errors";

export type WorkflowRow = typeof workflows.$inferSelect;
export type VersionRow = typeof workflowVersions.$inferSelect;

/** A live workflow of the workspace, or NotFound (other workspaces' ids look exactly the same). */
export async function loadWorkflow(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<WorkflowRow> {
  const q = db
    .select()
    .from(workflows)
    .where(
      and(
        eq(workflows.id, workflowId),
        eq(workflows.workspaceId, workspaceId),
        isNull(workflows.deletedAt),
      ),
    )
    .limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  if (!row) throw new NotFoundError("Workflow", workflowId);
  return row;
}

export async function loadVersion(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  versionId: string,
): Promise<VersionRow> {
  const [row] = await db
    .select()
    .from(workflowVersions)
    .where(
      and(
        eq(workflowVersions.id, versionId),
        eq(workflowVersions.workflowId, workflowId),
        eq(workflowVersions.workspaceId, workspaceId),
      ),
    )
    .limit(1);
  if (!row) throw new NotFoundError("Version", versionId);
  return row;
}

export async function currentVersion(db: Queryable, wf: WorkflowRow): Promise<VersionRow | null> {
  if (!wf.currentVersionId) return null;
  const [row] = await db
    .select()
    .from(workflowVersions)
    .where(eq(workflowVersions.id, wf.currentVersionId))
    .limit(1);
  return row ?? null;
}

/** A published version by its number ("1.4.0"). */
export async function loadVersionByNumber(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  version: string,
): Promise<VersionRow> {
  const [row] = await db
    .select()
    .from(workflowVersions)
    .where(
      and(
        eq(workflowVersions.workflowId, workflowId),
        eq(workflowVersions.workspaceId, workspaceId),
        eq(workflowVersions.version, version),
      ),
    )
    .limit(1);
  if (!row) throw new NotFoundError("Version", version);
  return row;
}
