import "server-only";
import { and, asc, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { approvalDecisions, approvals, runs, users, workflows } from "@/db/schema";
import { INLINE_WORKFLOW_NAME, ListApprovalsInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { approverRefusal } from "./approval-rules";

/** Most urgent first; unknown values (none are written) sort with normal. */
const PRIORITY_RANK = sql`case ${approvals.priority} when 'urgent' then 0 when 'high' then 1 when 'low' then 3 else 2 end`;

function pendingOrder(sort: ListApprovalsInput["sort"]): SQL[] {
  switch (sort) {
    case "priority":
      return [asc(PRIORITY_RANK), asc(approvals.dueAt), asc(approvals.expiresAt)];
    case "due":
      // Gates without a due date come after every dated one, soonest expiry first.
      return [sql`${approvals.dueAt} asc nulls last`, asc(approvals.expiresAt)];
    case "newest":
      return [desc(approvals.createdAt)];
    default:
      return [asc(approvals.expiresAt)];
  }
}

/**
 * The approvals inbox. `pending` + `mine`: gates waiting that the caller may decide (and has not
 * decided yet); `pending` + `all`: every open gate with who may decide it; `decided`: history.
 * `approvalId` narrows to one gate (the deep link), whatever its status. Gates of inline runs
 * have `workflowId` null and `workflowName` "inline", as inline runs do in the runs list.
 */
export async function listApprovals({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListApprovalsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  const { scope, status, limit, sort, approvalId } = parsed.data;
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
      form: approvals.form,
      priority: approvals.priority,
      dueAt: approvals.dueAt,
      decidedAt: approvals.decidedAt,
      decisionReason: approvals.decisionReason,
      createdAt: approvals.createdAt,
      runStatus: runs.status,
    })
    .from(approvals)
    // Gates of inline runs have no workflow: a left join keeps them.
    .leftJoin(workflows, eq(workflows.id, approvals.workflowId))
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .where(
      and(
        eq(approvals.workspaceId, ws.id),
        approvalId
          ? eq(approvals.id, approvalId)
          : status === "pending"
            ? eq(approvals.status, "pending")
            : ne(approvals.status, "pending"),
      ),
    )
    .orderBy(...(status === "pending" ? pendingOrder(sort) : [desc(approvals.decidedAt)]))
    .limit(scope === "mine" && status === "pending" && !approvalId ? 500 : limit);
  const decisions = rows.length
    ? await ctx.db
        .select({
          approvalId: approvalDecisions.approvalId,
          userId: approvalDecisions.userId,
          userName: users.name,
          decision: approvalDecisions.decision,
          reason: approvalDecisions.reason,
          via: approvalDecisions.via,
          form: approvalDecisions.formData,
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
      workflowName: r.workflowId ? r.workflowName : INLINE_WORKFLOW_NAME,
      decisions: ds,
      canDecide: r.status === "pending" && !refusal && !decidedByMe,
      whyNot: refusal ?? (decidedByMe ? "You already decided" : null),
    };
  });
  const filtered =
    scope === "mine" && status === "pending" && !approvalId
      ? items.filter((i) => i.canDecide)
      : items;
  return filtered.slice(0, limit);
}
