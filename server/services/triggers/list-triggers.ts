import "server-only";
import { and, desc, eq, inArray } from "drizzle-orm";
import { runs, triggerDeliveries, triggers } from "@/db/schema";
import { ListTriggersInput } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { describeTriggers } from "./describe-triggers";

/**
 * Triggers of the workspace (optionally of one workflow) with their last run and delivery, owner
 * and (schedules) effective zone.
 */
export async function listTriggers({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListTriggersInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  const rows = await ctx.db
    .select({ trigger: triggers, lastRunStatus: runs.status })
    .from(triggers)
    .leftJoin(runs, eq(runs.id, triggers.lastRunId))
    .where(
      and(
        eq(triggers.workspaceId, ws.id),
        parsed.data.workflowId ? eq(triggers.workflowId, parsed.data.workflowId) : undefined,
      ),
    )
    .orderBy(desc(triggers.createdAt))
    .limit(500);
  const ids = rows.map((r) => r.trigger.id);
  const latest = ids.length
    ? await ctx.db
        .selectDistinctOn([triggerDeliveries.triggerId], {
          triggerId: triggerDeliveries.triggerId,
          status: triggerDeliveries.status,
          reason: triggerDeliveries.reason,
          receivedAt: triggerDeliveries.receivedAt,
        })
        .from(triggerDeliveries)
        .where(inArray(triggerDeliveries.triggerId, ids))
        .orderBy(triggerDeliveries.triggerId, desc(triggerDeliveries.receivedAt))
    : [];
  const byTrigger = new Map(latest.map((d) => [d.triggerId, d]));
  const described = await describeTriggers(
    ctx,
    rows.map((r) => r.trigger),
  );
  return rows.map((r, i) => {
    const d = byTrigger.get(r.trigger.id);
    return {
      ...described[i]!,
      lastRunStatus: r.lastRunStatus ?? null,
      lastDelivery: d ? { status: d.status, reason: d.reason, receivedAt: d.receivedAt } : null,
    };
  });
}
