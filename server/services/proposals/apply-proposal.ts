import "server-only";
import { and, eq, ne } from "drizzle-orm";
import { proposals, workflows } from "@/db/schema";
import { ApplyProposalInput } from "@/lib/schemas/proposals";
import { canTransitionProposal } from "@/lib/workflow/status";
import { ConflictError, DomainError, fromZodError, ValidationError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { chainHistory } from "../history/chain-history";
import { refuseByRules, requireAdminReviewed, ruleVerdictsFor } from "./rule-verdicts";
import { enqueueWorkflowEvents } from "../run-state/workflow-events";
import { loadWorkflow } from "../workflows/load-workflow";
import { recordVersion } from "../workflows/record-version";
import { contentOf } from "../workflows/version-content";
import { checkChange } from "./change-checks";
import { ProposalError } from "./errors";
import { loadProposal } from "./load-proposal";
import { applyRefusal, throwRefusal } from "./proposal-rules";
import { publishedState, staleBase } from "./published-state";
import { transitionProposal } from "../run-state/transition";
import { requestDryRunsForWorkflow } from "./request-dry-runs";
import { enforceVerification } from "./verification-gate";

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
  const { proposalId, bump, overrideReason } = parsed.data;
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
      await enforceVerification(tx, ctx, {
        workspace: ws,
        proposal: p,
        base: state.definition,
        proposed,
        overrideReason,
      });
      const checked = await checkChange(tx, {
        workspaceId: ws.id,
        workflowId: wf.id,
        base: state.definition,
        proposed,
        what: "The proposed definition",
      });
      // The rules again, as they are now and on the current assessment.
      const ruleVerdicts = await ruleVerdictsFor(tx, ws.id, {
        base: state.definition,
        proposed,
        assessment: checked,
        author: { type: p.authorType, role: p.authorRole },
      });
      refuseByRules(ruleVerdicts, "Applying this proposal");
      await requireAdminReviewed(tx, p.id, ruleVerdicts);
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
      const moved = await transitionProposal(tx, {
        id: p.id,
        to: "applied",
        set: {
          appliedVersionId: version.id,
          appliedAt: now,
          appliedBy: userId,
          updatedAt: now,
          ruleVerdicts: ruleVerdicts as unknown as Record<string, unknown>[],
        },
      });
      if (!moved.won) throw new ConflictError("The proposal changed meanwhile; reload it");
      await chainHistory(tx, [{ workspaceId: ws.id, kind: "proposal_apply", rowId: p.id }]);
      const { rows: superseded } = await transitionProposal(tx, {
        to: "superseded",
        where: and(
          eq(proposals.workspaceId, ws.id),
          eq(proposals.workflowId, wf.id),
          eq(proposals.baseHash, p.baseHash),
          ne(proposals.id, p.id),
        ),
        set: {
          statusReason: `Proposal ${p.id} was applied on the same base as v${version.version}`,
          updatedAt: now,
        },
      });
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
    // Only an approved proposal is re-checked on apply; a pending one never reaches this.
    const moved = await transitionProposal(tx, {
      id: proposalId,
      to: "failed",
      from: ["approved"],
      where: eq(proposals.workspaceId, workspaceId),
      set: { statusReason: why.slice(0, 2000), updatedAt: ctx.now() },
    });
    if (moved.won)
      await recordAudit(tx, ctx, {
        workspaceId,
        action: "proposal.failed",
        targetType: "proposal",
        targetId: proposalId,
        data: { reason: why.slice(0, 2000) },
      });
  });
}
