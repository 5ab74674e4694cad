import "server-only";
import { and, count, desc, eq, inArray, isNull } from "drizzle-orm";
import { quotaUsage, workflows } from "@/db/schema";
import { DEFAULT_PLAN, quotaWindow, QUOTA_KEYS, type QuotaKey } from "@/lib/quotas/plans";
import { hasRole } from "@/lib/schemas/roles";
import { requireRole, type ServiceContext } from "../context";
import { readUsage } from "./usage-counter";
import { loadWorkspaceQuota } from "./workspace-quota";

export interface QuotaMeter {
  key: QuotaKey;
  used: number;
  limit: number | null;
  /** When the count starts again (ISO), for counted quotas. */
  resetsAt: string | null;
}

/**
 * The workspace's plan, limits and usage, for every member (Settings → Quotas): counted limits as
 * meters (definitions, runs this month, webhook requests this minute, the busiest workflow's LLM
 * tokens this month), plus LLM tokens by workflow. Nothing here is secret.
 */
export async function getQuotaUsage({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const now = ctx.now();
  const q = await loadWorkspaceQuota(ctx.db, ws.id, ctx.config);
  const month = quotaWindow("month", now)!;
  const minute = quotaWindow("minute", now)!;
  const [defs] = await ctx.db
    .select({ n: count() })
    .from(workflows)
    .where(and(eq(workflows.workspaceId, ws.id), isNull(workflows.deletedAt)));
  const runsUsed = await readUsage(ctx.db, {
    workspaceId: ws.id,
    metric: "runs",
    periodStart: month.start,
  });
  const webhookUsed = await readUsage(ctx.db, {
    workspaceId: ws.id,
    metric: "webhook_requests",
    periodStart: minute.start,
  });
  const tokenRows = await ctx.db
    .select({ workflowId: quotaUsage.scopeId, used: quotaUsage.used })
    .from(quotaUsage)
    .where(
      and(
        eq(quotaUsage.workspaceId, ws.id),
        eq(quotaUsage.metric, "llm_tokens"),
        eq(quotaUsage.periodStart, month.start),
      ),
    )
    .orderBy(desc(quotaUsage.used))
    .limit(20);
  const names = tokenRows.length
    ? await ctx.db
        .select({ id: workflows.id, name: workflows.name })
        .from(workflows)
        .where(
          and(
            eq(workflows.workspaceId, ws.id),
            inArray(
              workflows.id,
              tokenRows.map((r) => r.workflowId),
            ),
          ),
        )
    : [];
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  const llmByWorkflow = tokenRows.map((r) => ({
    workflowId: r.workflowId,
    name: nameOf.get(r.workflowId) ?? r.workflowId,
    used: Number(r.used),
  }));
  const meters: QuotaMeter[] = [
    {
      key: "definitionsPerWorkspace",
      used: defs?.n ?? 0,
      limit: q.limits.definitionsPerWorkspace,
      resetsAt: null,
    },
    {
      key: "runsPerMonth",
      used: runsUsed,
      limit: q.limits.runsPerMonth,
      resetsAt: month.resetsAt.toISOString(),
    },
    {
      key: "llmTokensPerWorkflowPerMonth",
      used: llmByWorkflow[0]?.used ?? 0,
      limit: q.limits.llmTokensPerWorkflowPerMonth,
      resetsAt: month.resetsAt.toISOString(),
    },
    {
      key: "webhookRequestsPerMinute",
      used: webhookUsed,
      limit: q.limits.webhookRequestsPerMinute,
      resetsAt: minute.resetsAt.toISOString(),
    },
  ];
  return {
    plan: q.plan,
    planSource: q.planSource,
    defaultPlan: ctx.config.defaultPlan ?? DEFAULT_PLAN,
    overrides: q.overrides,
    limits: Object.fromEntries(QUOTA_KEYS.map((k) => [k, q.limits[k]])) as Record<
      QuotaKey,
      number | null
    >,
    meters,
    llmByWorkflow,
    canEdit: hasRole(ws.role, "admin"),
  };
}
