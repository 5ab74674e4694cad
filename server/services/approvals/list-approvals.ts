import "server-only";
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { approvalDecisions, approvals, runs, users, workflows } from "@/db/schema";
import { ListApprovalsInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { approverRefusal } from "./approval-rules";

/**
 * The approvals inbox. `pending` + `mine`: gates waiting that the caller may decide (and has not
 * decided yet); `pending` + `all`: every open gate with who may decide it; `decided`: history.
 */
export async function listApprovals({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListApprovalsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  const { scope, status, limit } = parsed.data;
  const userId = requireUserId(ctx);
  const [me] = await ctx.db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  const rows = await ctx.db
    .select({
      id: approvals.id,
      runId: approvals.runId,
      workflowId: approvals.workflowId,
      workflowName: workflows.name,
      stepId: approvals.stepId,
      stepPath: approvals.stepPath,
      status: approvals.status,
      prompt: approvals.prompt,
      items: approvals.items,
      approvers: approvals.approvers,
      quorum: approvals.quorum,
      allowInitiator: approvals.allowInitiator,
      initiatorUserId: approvals.initiatorUserId,
      expiresAt: approvals.expiresAt,
      decidedAt: approvals.decidedAt,
      decisionReason: approvals.decisionReason,
      createdAt: approvals.createdAt,
      runStatus: runs.status,
    })
    .from(approvals)
    .innerJoin(workflows, eq(workflows.id, approvals.workflowId))
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .where(
      and(
        eq(approvals.workspaceId, ws.id),
        status === "pending" ? eq(approvals.status, "pending") : ne(approvals.status, "pending"),
      ),
    )
    .orderBy(status === "pending" ? approvals.expiresAt : desc(approvals.decidedAt))
    .limit(scope === "mine" && status === "pending" ? 500 : limit);
  const decisions = rows.length
    ? await ctx.db
        .select({
          approvalId: approvalDecisions.approvalId,
          userId: approvalDecisions.userId,
          userName: users.name,
          decision: approvalDecisions.decision,
          reason: approvalDecisions.reason,
          via: approvalDecisions.via,
          createdAt: approvalDecisions.createdAt,
        })
        .from(approvalDecisions)
        .innerJoin(users, eq(users.id, approvalDecisions.userId))
        .where(
          inArray(
            approvalDecisions.approvalId,
            rows.map((r) => r.id),
          ),
        )
    : [];
  const byApproval = new Map<string, typeof decisions>();
  for (const d of decisions)
    byApproval.set(d.approvalId, [...(byApproval.get(d.approvalId) ?? []), d]);
  const items = rows.map((r) => {
    const ds = byApproval.get(r.id) ?? [];
    const refusal = approverRefusal(
      {
        approvers: r.approvers,
        allowInitiator: r.allowInitiator,
        initiatorUserId: r.initiatorUserId,
      },
      { userId, email: me?.email ?? "", role: ws.role },
    );
    const decidedByMe = ds.some((d) => d.userId === userId);
    return {
      ...r,
      decisions: ds,
      canDecide: r.status === "pending" && !refusal && !decidedByMe,
      whyNot: refusal ?? (decidedByMe ? "You already decided" : null),
    };
  });
  const filtered =
    scope === "mine" && status === "pending" ? items.filter((i) => i.canDecide) : items;
  return filtered.slice(0, limit);
}
