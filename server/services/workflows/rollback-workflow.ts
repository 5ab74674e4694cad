import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { RollbackInput, type RollbackResult } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { currentVersion, loadVersion, loadVersionByHash, loadWorkflow } from "./load-workflow";
import { recordVersion } from "./record-version";
import { contentOf } from "./version-content";

/**
 * Restores an old version (named by id or by content hash) as a NEW version (source `rollback`,
 * same hash as the restored one), so history stays append-only. The draft is reset to the
 * restored content, otherwise the next publish would silently undo the rollback. Content that is
 * already current is a no-op that says so (`alreadyAtVersion`), so retries are safe.
 */
export async function rollbackWorkflow({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<RollbackResult> {
  const ws = requireRole(ctx, "editor");
  const parsed = RollbackInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rollback");
  const { workflowId, versionId, hash, notes } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    const target = versionId
      ? await loadVersion(tx, ws.id, wf.id, versionId)
      : await loadVersionByHash(tx, ws.id, wf.id, hash!);
    const current = await currentVersion(tx, wf);
    if (current && current.hash === target.hash)
      return {
        alreadyAtVersion: true as const,
        version: current.version,
        versionId: current.id,
        hash: current.hash,
      };
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
      alreadyAtVersion: false as const,
      version: result.version.version,
      versionId: result.version.id,
      restored: target.version,
      hash: target.hash,
    };
  });
}
