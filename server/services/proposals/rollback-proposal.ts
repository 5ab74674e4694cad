import "server-only";
import { RollbackProposalInput } from "@/lib/schemas/proposals";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { rollbackWorkflow } from "../workflows/rollback-workflow";
import { ProposalError } from "./errors";
import { loadProposal } from "./load-proposal";

/**
 * Undoes an applied proposal: the existing rollback verb restores the proposal's base version (a
 * new version, source `rollback`), run inside this transaction so its audit row and the one
 * linking it to the proposal commit together. When the base content is already current, it
 * answers `alreadyAtVersion` and writes nothing.
 */
export async function rollbackProposal({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RollbackProposalInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rollback");
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, ws.id, parsed.data.proposalId);
    if (p.status !== "applied")
      throw new ProposalError(
        "INVALID_STATUS",
        `Only an applied proposal can be rolled back; this one is ${p.status}`,
      );
    const r = await rollbackWorkflow({
      ctx: { ...ctx, db: tx },
      input: {
        workflowId: p.workflowId,
        versionId: p.baseVersionId,
        notes: `Rollback of proposal ${p.id} (${p.summary}) to v${p.baseVersion}`,
      },
    });
    // The base content is live already (rolled back another way): nothing happened to audit.
    if (r.alreadyAtVersion)
      return { alreadyAtVersion: true as const, versionId: r.versionId, version: r.version };
    await recordAudit(tx, ctx, {
      workspaceId: ws.id,
      action: "proposal.rolled_back",
      targetType: "proposal",
      targetId: p.id,
      data: {
        workflowId: p.workflowId,
        versionId: r.versionId,
        version: r.version,
        restored: r.restored,
        appliedVersionId: p.appliedVersionId,
      },
    });
    return { alreadyAtVersion: false as const, versionId: r.versionId, version: r.version };
  });
}
