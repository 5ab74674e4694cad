import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { approvals, runs, users, workflows } from "@/db/schema";
import { RunRef } from "@/lib/schemas/runs";
import { hasRole } from "@/lib/schemas/roles";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { signResumeToken } from "../approvals/resume-token";
import { contentOf } from "../workflows/version-content";
import { loadRun } from "./load-run";

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
  const [wf] = await ctx.db
    .select({ name: workflows.name, slug: workflows.slug })
    .from(workflows)
    .where(eq(workflows.id, run.workflowId));
  const [initiator] =
    run.initiatorType === "user" && run.initiatorId
      ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, run.initiatorId))
      : [];
  const pending = await ctx.db
    .select()
    .from(approvals)
    .where(and(eq(approvals.runId, run.id), eq(approvals.status, "pending")))
    .orderBy(asc(approvals.createdAt));
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
  const { rerunSeed: _seed, ...rest } = run;
  return {
    ...rest,
    workflowName: wf?.name ?? "(deleted workflow)",
    workflowSlug: wf?.slug ?? null,
    initiatorName: initiator?.name ?? null,
    definition: await contentOf(ctx.db, ws.id, run.hash),
    children,
    pendingApprovals: pending.map((a) => ({
      id: a.id,
      stepId: a.stepId,
      stepPath: a.stepPath,
      prompt: a.prompt,
      items: a.items,
      quorum: a.quorum,
      expiresAt: a.expiresAt,
      approvers: a.approvers,
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
