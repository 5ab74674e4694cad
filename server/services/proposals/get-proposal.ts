import "server-only";
import { asc, eq } from "drizzle-orm";
import { proposalReviews, users, workflowVersions } from "@/db/schema";
import { ProposalRef, type ProposalDetail } from "@/lib/schemas/proposals";
import type { RuleVerdict } from "@/lib/schemas/proposal-rules";
import { hasRole } from "@/lib/schemas/roles";
import { diffDefinitions } from "@/lib/workflow/diff";
import { summarizeChange } from "@/lib/workflow/change-summary";
import { isOpenProposalStatus } from "@/lib/workflow/status";
import type { DryRunReport, DryRunRunReport } from "@/lib/workflow/dry-run-types";
import { computeVerification } from "@/lib/workflow/verification";
import type { PolicyVerdict, RiskReason } from "@/lib/workflow/proposal-risk-change";
import { fromZodError, NotFoundError, PreconditionFailedError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings } from "../settings/read-settings";
import { loadWorkflow } from "../workflows/load-workflow";
import { contentOf } from "../workflows/version-content";
import { loadProposal } from "./load-proposal";
import { applyRefusal, reviewRefusal } from "./proposal-rules";
import { toListItem } from "./proposal-view";
import { publishedState } from "./published-state";
import { reviewedContentHash } from "./shown-hash";

/** A catch handler turning one expected error class into null (anything else propagates). */
function nullIf(kind: new (...args: never[]) => Error) {
  return (e: unknown): null => {
    if (e instanceof kind) return null;
    throw e;
  };
}

/**
 * One proposal with everything the review screen shows: base, proposed and current definitions,
 * the diff and its summary, risk reasons, policy verdicts, the dry run, reviews, and what the
 * caller may do with it (and why not).
 */
export async function getProposal({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<ProposalDetail> {
  const ws = requireRole(ctx, "viewer");
  const parsed = ProposalRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Proposal");
  const p = await loadProposal(ctx.db, ws.id, parsed.data.proposalId);
  // The workflow may be soft-deleted since; its rows and contents stay for history.
  const wf = await loadWorkflow(ctx.db, ws.id, p.workflowId).catch(nullIf(NotFoundError));
  const base = await contentOf(ctx.db, ws.id, p.baseHash);
  const proposed = await contentOf(ctx.db, ws.id, p.proposedHash);
  const current = wf
    ? await publishedState(ctx.db, wf).catch(nullIf(PreconditionFailedError))
    : null;
  const reviews = await ctx.db
    .select({ r: proposalReviews, name: users.name })
    .from(proposalReviews)
    .innerJoin(users, eq(users.id, proposalReviews.userId))
    .where(eq(proposalReviews.proposalId, p.id))
    .orderBy(asc(proposalReviews.createdAt));
  const [applied] = p.appliedVersionId
    ? await ctx.db
        .select({ id: workflowVersions.id, version: workflowVersions.version })
        .from(workflowVersions)
        .where(eq(workflowVersions.id, p.appliedVersionId))
    : [];
  const diff = diffDefinitions(base, proposed);
  const dryRun = {
    status: p.dryRunStatus,
    done: p.dryRunDone,
    total: p.dryRunTotal,
    report: (p.dryRunReport as DryRunReport | null) ?? null,
    error: p.dryRunError,
  };
  const shadowRuns = p.shadowRuns as unknown as DryRunRunReport[];
  const now = ctx.now();
  // Staleness matters only while the proposal can still be applied: once applied, the current
  // version is its own (≠ base), and a rejected or expired one will never be applied.
  const isStale =
    isOpenProposalStatus(p.status) && (!current || current.version.hash !== p.baseHash);
  const caller =
    ctx.actor.type === "user" || ctx.actor.type === "token"
      ? { userId: ctx.actor.userId, role: ws.role }
      : null;
  const settings = await readRawSettings(ctx.db, ws.id);
  const reviewWhy = caller
    ? reviewRefusal(p, caller, "approve", {
        allowSelfApproval: settings.allowSelfApproval === true,
        now,
      })
    : { message: "Only people and API tokens review proposals" };
  const applyWhy = caller
    ? (applyRefusal(p, caller, wf?.createdBy ?? null, now) ??
      (isStale
        ? { message: "The workflow changed since this proposal was made (STALE_BASE)" }
        : null))
    : { message: "Only people and API tokens apply proposals" };
  const canRollback = p.status === "applied" && hasRole(ws.role, "editor");
  return {
    ...toListItem(p, wf?.name ?? "(deleted workflow)"),
    rationale: p.rationale,
    base: {
      versionId: p.baseVersionId,
      version: p.baseVersion,
      hash: p.baseHash,
      definition: base,
    },
    proposed: { hash: p.proposedHash, definition: proposed },
    current: current
      ? {
          versionId: current.version.id,
          version: current.version.version,
          hash: current.version.hash,
          definition: current.definition,
        }
      : null,
    isStale,
    diff,
    changeSummary: summarizeChange(diff),
    riskReasons: p.riskReasons as unknown as RiskReason[],
    verdicts: p.verdicts as unknown as PolicyVerdict[],
    ruleVerdicts: p.ruleVerdicts as unknown as RuleVerdict[],
    needsSeniorReviewer: p.needsSeniorReviewer,
    dryRun,
    shadowRuns,
    verification: computeVerification({ diff, dryRun, shadowRuns }),
    requireVerifiedToApply: settings.requireVerifiedToApply === true,
    reviews: reviews.map(({ r, name }) => ({
      reviewer: { id: r.userId, name },
      decision: r.decision,
      notes: r.notes,
      shownHash: r.shownHash,
      createdAt: r.createdAt,
    })),
    appliedVersion: applied ?? null,
    origin: { runId: p.runId, stepId: p.stepId },
    reviewedContentHash: reviewedContentHash(p),
    can: {
      review: reviewWhy === null,
      apply: applyWhy === null,
      rollback: canRollback,
      // The reason that matters for the proposal's status: its next possible step.
      why:
        p.status === "pending"
          ? (reviewWhy?.message ?? null)
          : p.status === "approved"
            ? (applyWhy?.message ?? null)
            : p.status === "applied"
              ? canRollback
                ? null
                : "Rolling back needs the editor role"
              : (p.statusReason ?? `The proposal is ${p.status}`),
    },
  };
}
