import "server-only";
import { and, eq, isNull, or } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflows } from "@/db/schema";
import { NotFoundError } from "../../errors";

/** A workflow of the workspace by id (wf_…) or slug, for subworkflow steps and agent tools. */
export async function resolveWorkflowRef(db: Queryable, workspaceId: string, ref: string) {
  const [wf] = await db
    .select()
    .from(workflows)
    .where(
      and(
        eq(workflows.workspaceId, workspaceId),
        isNull(workflows.deletedAt),
        or(eq(workflows.id, ref), eq(workflows.slug, ref)),
      ),
    )
    .limit(1);
  if (!wf) throw new NotFoundError("Workflow", ref);
  return wf;
}
