import "server-only";
import { and, asc, eq, inArray } from "drizzle-orm";
import { approvalDecisions, approvals, runs, users, workflows } from "@/db/schema";
import { INLINE_WORKFLOW_NAME, RunRef } from "@/lib/schemas/runs";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { approverRefusal, initiatorMayNotDecide } from "../approvals/approval-rules";
import { signResumeToken } from "../approvals/resume-token";
import { loadRecording, recordingDefinition } from "../recordings/load-recording";
import { contentOf } from "../workflows/version-content";
import { executionUrl } from "./engine-execution";
import { loadRun } from "./load-run";
import { runDecisions } from "./run-decisions";

/**
 * A run with its pinned definition snapshot, the workflow's name, child runs, and — when it waits
 * for an approval the caller could decide — what is asked and the resume token (SPEC §9's
 * `requiresApproval`).
 */
export async function getRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = RunRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const run = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const [wf] = run.workflowId
    ? await ctx.db
        .select({ name: workflows.name, slug: workflows.slug })
        .from(workflows)
        .where(eq(workflows.id, run.workflowId))
    : [{ name: INLINE_WORKFLOW_NAME, slug: null }];
  const [initiator] =
    run.initiatorType === "user" && run.initiatorId
      ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, run.initiatorId))
      : [];
  const pending = await ctx.db
    .select()
    .from(approvals)
    .where(and(eq(approvals.runId, run.id), eq(approvals.status, "pending")))
    .orderBy(asc(approvals.createdAt));
  // Whether the caller may decide each open gate, and why not (same rules as decideApproval).
  const userId = ctx.actor.type === "user" || ctx.actor.type === "token" ? ctx.actor.userId : null;
  const [me] = userId
    ? await ctx.db.select({ email: users.email }).from(users).where(eq(users.id, userId))
    : [];
  const mine =
    userId && pending.length
      ? await ctx.db
          .select({ approvalId: approvalDecisions.approvalId })
          .from(approvalDecisions)
          .where(
            and(
              eq(approvalDecisions.userId, userId),
              inArray(
                approvalDecisions.approvalId,
                pending.map((a) => a.id),
              ),
            ),
          )
      : [];
  const decidedByMe = new Set(mine.map((d) => d.approvalId));
  const children = await ctx.db
    .select({
      id: runs.id,
      status: runs.status,
      workflowId: runs.workflowId,
      parentStepId: runs.parentStepId,
      createdAt: runs.createdAt,
    })
    .from(runs)
    .where(and(eq(runs.workspaceId, ws.id), eq(runs.parentRunId, run.id)))
    .orderBy(asc(runs.createdAt));
  const {
    rerunSeed,
    repositoryUrl,
    repositoryRef,
    repositorySha,
    repositoryCredentialsSecret: _credentialsSecret,
    ...rest
  } = run;
  return {
    ...rest,
    /** Repository context: the URL and ref asked for and the commit pinned before step 1. */
    repository:
      repositoryUrl && repositoryRef
        ? { url: repositoryUrl, ref: repositoryRef, sha: repositorySha }
        : null,
    /** The durable engine's execution driving the run (null before it began), and its dashboard page. */
    executionId: run.inngestRunId,
    executionUrl: executionUrl(ctx.config.engine, run.inngestRunId),
    workflowName: wf?.name ?? "(deleted workflow)",
    workflowSlug: wf?.slug ?? null,
    initiatorName: initiator?.name ?? null,
    /** Steps of a rerun-from-step whose outcomes were reused from the original run (no attempts here). */
    reusedStepIds: rerunSeed ? Object.keys(rerunSeed) : [],
    // A recording's pinned version is a placeholder: it shows the steps recorded so far.
    definition:
      run.triggerType === "recording"
        ? recordingDefinition(await loadRecording(ctx.db, ws.id, run.id))
        : await contentOf(ctx.db, ws.id, run.hash),
    children,
    /** Decided approvals and finished tasks: who (by name), when and why. */
    decisions: await runDecisions(ctx.db, ws.id, run.id),
    pendingApprovals: pending.map((a) => ({
      id: a.id,
      stepId: a.stepId,
      stepPath: a.stepPath,
      prompt: a.prompt,
      items: a.items,
      quorum: a.quorum,
      expiresAt: a.expiresAt,
      approvers: a.approvers,
      form: a.form,
      priority: a.priority,
      dueAt: a.dueAt,
      ...decisionRight(a, userId, me?.email ?? "", ws.role, decidedByMe),
      // The token is a credential for deciding: only people who may decide gates see it.
      resumeToken: !hasRole(ws.role, "approver")
        ? null
        : signResumeToken(ctx.keys, {
            approvalId: a.id,
            runId: run.id,
            stepPath: a.stepPath,
            attempt: a.attempt,
            hash: run.hash,
            expiresAt: a.expiresAt,
          }),
    })),
  };
}

function decisionRight(
  a: typeof approvals.$inferSelect,
  userId: string | null,
  email: string,
  role: Role,
  decidedByMe: ReadonlySet<string>,
): { canDecide: boolean; whyNot: string | null; initiatorRule: boolean } {
  if (!userId)
    return {
      canDecide: false,
      whyNot: "Only signed-in members decide approvals here",
      initiatorRule: false,
    };
  const rules = {
    approvers: a.approvers,
    allowInitiator: a.allowInitiator,
    initiatorUserId: a.initiatorUserId,
  };
  const refusal = approverRefusal(rules, { userId, email, role });
  // The initiator rule gets an explanation and a way to change it on the run page.
  const initiatorRule = initiatorMayNotDecide(rules, userId);
  if (refusal) return { canDecide: false, whyNot: refusal, initiatorRule };
  if (decidedByMe.has(a.id))
    return { canDecide: false, whyNot: "You already decided this gate", initiatorRule };
  return { canDecide: true, whyNot: null, initiatorRule };
}
