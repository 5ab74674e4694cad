import "server-only";
import { and, eq, inArray, ne } from "drizzle-orm";
import { proposals, workflows } from "@/db/schema";
import { ApplyProposalInput } from "@/lib/schemas/proposals";
import { canTransitionProposal, OPEN_PROPOSAL_STATUSES } from "@/lib/workflow/status";
import { ConflictError, DomainError, fromZodError, ValidationError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { enqueueWorkflowEvents } from "../run-state/workflow-events";
import { loadWorkflow } from "../workflows/load-workflow";
import { recordVersion } from "../workflows/record-version";
import { contentOf } from "../workflows/version-content";
import { checkChange } from "./change-checks";
import { ProposalError } from "./errors";
import { loadProposal } from "./load-proposal";
import { applyRefusal, throwRefusal } from "./proposal-rules";
import { publishedState, staleBase } from "./published-state";
import { requestDryRunsForWorkflow } from "./request-dry-runs";

/** Re-check failures that make the proposal unusable for good (recorded as `failed`). */
function isFinalRecheckFailure(e: unknown): e is DomainError {
  return (
    e instanceof ValidationError || (e instanceof ProposalError && e.reason === "POLICY_VIOLATION")
  );
}

/**
 * Applies an approved proposal in one transaction (SPEC §8): lock the workflow, re-check status,
 * expiry, base hash and policy, append the version (source `proposal_apply`), reset the draft like
 * a rollback, mark the proposal applied and every other open proposal on the same base
 * superseded, audit, and publish `proposal.applied` as a workflow event. The workflow row lock
 * serialises concurrent applies: the first wins, the others find their base gone.
 */
export async function applyProposal({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const userId = requireUserId(ctx);
  const parsed = ApplyProposalInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Apply");
  const { proposalId, bump } = parsed.data;
  const first = await loadProposal(ctx.db, ws.id, proposalId);
  try {
    return await ctx.db.transaction(async (tx) => {
      const wf = await loadWorkflow(tx, ws.id, first.workflowId, { forUpdate: true });
      // Read again under the workflow lock: a concurrent apply may have superseded it.
      const p = await loadProposal(tx, ws.id, proposalId, { forUpdate: true });
      const now = ctx.now();
      const refusal = applyRefusal(p, { userId, role: ws.role }, wf.createdBy, now);
      if (refusal) throwRefusal(refusal);
      const state = await publishedState(tx, wf);
      const proposed = await contentOf(tx, ws.id, p.proposedHash);
      if (state.version.hash !== p.baseHash)
        throw await staleBase(tx, wf, { baseHash: p.baseHash, current: state, proposed });
      const checked = await checkChange(tx, {
        workspaceId: ws.id,
        workflowId: wf.id,
        base: state.definition,
        proposed,
        what: "The proposed definition",
      });
      const result = await recordVersion(tx, ctx, wf, {
        definition: checked.compiled.normalized,
        hash: checked.compiled.hash,
        source: "proposal_apply",
        bump,
        notes: `Applied proposal ${p.id}: ${p.summary}`,
        requestDryRuns: false,
      });
      const version = result.version;
      await tx
        .update(workflows)
        .set({
          draft: checked.compiled.normalized,
          draftHash: checked.compiled.hash,
          draftRevision: wf.draftRevision + 1,
          draftUpdatedAt: now,
          draftUpdatedBy: userId,
        })
        .where(eq(workflows.id, wf.id));
      if (!canTransitionProposal(p.status, "applied"))
        throw new ProposalError("INVALID_STATUS", `A ${p.status} proposal cannot be applied`);
      const moved = await tx
        .update(proposals)
        .set({
          status: "applied",
          appliedVersionId: version.id,
          appliedAt: now,
          appliedBy: userId,
          updatedAt: now,
        })
        .where(and(eq(proposals.id, p.id), eq(proposals.status, "approved")))
        .returning({ id: proposals.id });
      if (moved.length !== 1) throw new ConflictError("The proposal changed meanwhile; reload it");
      const superseded = await tx
        .update(proposals)
        .set({
          status: "superseded",
          statusReason: `Proposal ${p.id} was applied on the same base as v${version.version}`,
          updatedAt: now,
        })
        .where(
          and(
            eq(proposals.workspaceId, ws.id),
            eq(proposals.workflowId, wf.id),
            eq(proposals.baseHash, p.baseHash),
            inArray(proposals.status, [...OPEN_PROPOSAL_STATUSES]),
            ne(proposals.id, p.id),
          ),
        )
        .returning({ id: proposals.id });
      // Open proposals on other (older) bases are compared with the new version from now on.
      await requestDryRunsForWorkflow(tx, ws.id, wf.id, now);
      await recordAudit(tx, ctx, {
        workspaceId: ws.id,
        action: "proposal.applied",
        targetType: "proposal",
        targetId: p.id,
        data: {
          workflowId: wf.id,
          versionId: version.id,
          version: version.version,
          hash: version.hash,
          bump,
          superseded: superseded.map((s) => s.id),
        },
      });
      await enqueueWorkflowEvents(
        tx,
        ws.id,
        [
          {
            id: `sys_${p.id}`,
            name: "proposal.applied",
            data: {
              proposalId: p.id,
              workflowId: wf.id,
              workflowSlug: wf.slug,
              workflowName: wf.name,
              version: version.version,
              versionId: version.id,
              hash: version.hash,
              baseVersion: p.baseVersion,
              summary: p.summary,
              risk: p.risk,
            },
            source: { proposalId: p.id, system: true },
          },
        ],
        now,
      );
      return { versionId: version.id, version: version.version };
    });
  } catch (e) {
    // The change itself no longer passes (policy tightened, step type forbidden): it never will
    // on this base, so the proposal fails with the reason, and the caller still gets the error.
    if (isFinalRecheckFailure(e)) await markFailed(ctx, ws.id, proposalId, e.message);
    throw e;
  }
}

async function markFailed(
  ctx: ServiceContext,
  workspaceId: string,
  proposalId: string,
  why: string,
) {
  await ctx.db.transaction(async (tx) => {
    const moved = await tx
      .update(proposals)
      .set({ status: "failed", statusReason: why.slice(0, 2000), updatedAt: ctx.now() })
      .where(
        and(
          eq(proposals.id, proposalId),
          eq(proposals.workspaceId, workspaceId),
          eq(proposals.status, "approved"),
        ),
      )
      .returning({ id: proposals.id });
    if (moved.length === 1)
      await recordAudit(tx, ctx, {
        workspaceId,
        action: "proposal.failed",
        targetType: "proposal",
        targetId: proposalId,
        data: { reason: why.slice(0, 2000) },
      });
  });
}
