import "server-only";
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
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

/** One version of the workflow matching `where` (the newest, when several do), or undefined. */
async function findVersion(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  where: SQL,
): Promise<VersionRow | undefined> {
  const [row] = await db
    .select()
    .from(workflowVersions)
    .where(
      and(
        where,
        eq(workflowVersions.workflowId, workflowId),
        eq(workflowVersions.workspaceId, workspaceId),
      ),
    )
    .orderBy(
      desc(workflowVersions.major),
      desc(workflowVersions.minor),
      desc(workflowVersions.patch),
    )
    .limit(1);
  return row;
}

export async function loadVersion(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  versionId: string,
): Promise<VersionRow> {
  const row = await findVersion(db, workspaceId, workflowId, eq(workflowVersions.id, versionId));
  if (!row) throw new NotFoundError("Version", versionId);
  return row;
}

/** The newest version with this content hash (a rollback repeats an older version's hash). */
export async function loadVersionByHash(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  hash: string,
): Promise<VersionRow> {
  const row = await findVersion(db, workspaceId, workflowId, eq(workflowVersions.hash, hash));
  if (!row) throw new NotFoundError("Version with hash", hash);
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
  const row = await findVersion(db, workspaceId, workflowId, eq(workflowVersions.version, version));
  if (!row) throw new NotFoundError("Version", version);
  return row;
}
