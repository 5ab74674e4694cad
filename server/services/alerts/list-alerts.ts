import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { alerts } from "@/db/schema";
import { ListAlertsInput } from "@/lib/schemas/alerts";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

/** The workspace's recent alerts (newest first), optionally of one workflow; any member. */
export async function listAlerts({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListAlertsInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Alerts");
  const rows = await ctx.db
    .select({
      id: alerts.id,
      kind: alerts.kind,
      status: alerts.status,
      summary: alerts.summary,
      suppressedCount: alerts.suppressedCount,
      workflowId: alerts.workflowId,
      runId: alerts.runId,
      triggerId: alerts.triggerId,
      attempts: alerts.attempts,
      lastError: alerts.lastError,
      createdAt: alerts.createdAt,
      deliveredAt: alerts.deliveredAt,
    })
    .from(alerts)
    .where(
      and(
        eq(alerts.workspaceId, ws.id),
        parsed.data.workflowId ? eq(alerts.workflowId, parsed.data.workflowId) : undefined,
      ),
    )
    .orderBy(desc(alerts.createdAt), desc(alerts.id))
    .limit(parsed.data.limit);
  return { alerts: rows };
}
