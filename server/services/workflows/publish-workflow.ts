import "server-only";
import { PublishWorkflowInput } from "@/lib/schemas/workflows";
import { ConflictError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { compileDefinition } from "./definition-policy";
import { gatesOnlyInitiatorCanDecide } from "./gate-deciders";
import { loadWorkflow } from "./load-workflow";
import { recordVersion } from "./record-version";

/**
 * Publishes the draft: validates it with the workspace policy (refusing with every issue),
 * hashes it, and appends a version with the chosen semver bump. Identical content is a no-op
 * that says so (`status: "unchanged"`). Warnings include gates only the publisher could decide.
 */
export async function publishWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = PublishWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Publish");
  const { workflowId, bump, notes, draftRevision } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    if (draftRevision !== undefined && draftRevision !== wf.draftRevision) {
      throw new ConflictError(
        `The draft changed since you opened it (revision ${wf.draftRevision}); review it and publish again`,
      );
    }
    const compiled = await compileDefinition(tx, ws.id, wf.draft, "The draft");
    const gateWarnings = await gatesOnlyInitiatorCanDecide(
      tx,
      ws.id,
      compiled.definition,
      ctx.actor.type === "user" || ctx.actor.type === "token" ? ctx.actor.userId : null,
    );
    const result = await recordVersion(tx, ctx, wf, {
      definition: compiled.normalized,
      hash: compiled.hash,
      source: "publish",
      bump,
      notes,
    });
    return {
      status: result.status,
      version: result.version.version,
      versionId: result.version.id,
      hash: result.version.hash,
      warnings: [...compiled.warnings, ...gateWarnings],
    };
  });
}
