import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { RollbackInput } from "@/lib/schemas/workflows";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { loadVersion, loadWorkflow } from "./load-workflow";
import { recordVersion } from "./record-version";
import { contentOf } from "./version-content";

/**
 * Restores an old version as a NEW version (source `rollback`, same hash as the restored one),
 * so history stays append-only. The draft is reset to the restored content, otherwise the next
 * publish would silently undo the rollback.
 */
export async function rollbackWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RollbackInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rollback");
  const { workflowId, versionId, notes } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    const target = await loadVersion(tx, ws.id, wf.id, versionId);
    if (target.id === wf.currentVersionId)
      throw new PreconditionFailedError(`v${target.version} is already the current version`);
    const definition = await contentOf(tx, ws.id, target.hash);
    const result = await recordVersion(tx, ctx, wf, {
      definition,
      hash: target.hash,
      source: "rollback",
      notes: notes || `Rollback to v${target.version}`,
      restoredFromVersionId: target.id,
    });
    await tx
      .update(workflows)
      .set({
        draft: definition,
        draftHash: target.hash,
        draftRevision: wf.draftRevision + 1,
        draftUpdatedAt: ctx.now(),
        draftUpdatedBy: requireUserId(ctx),
      })
      .where(eq(workflows.id, wf.id));
    return {
      version: result.version.version,
      versionId: result.version.id,
      restored: target.version,
      hash: target.hash,
    };
  });
}
