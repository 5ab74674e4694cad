import "server-only";
import { eq } from "drizzle-orm";
import { runs, workflows } from "@/db/schema";
import { TriggerRef, WebhookConfig } from "@/lib/schemas/triggers";
import { sampleRequest } from "@/lib/triggers/samples";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { deliveryPage } from "./list-trigger-deliveries";
import { describeTriggers } from "./describe-triggers";
import { loadTrigger } from "./load-trigger";
import { currentDefinition } from "./webhook-cache";

/**
 * One trigger with its workflow, owner, last run, 20 recent deliveries, (schedules) effective zone
 * and (webhooks) a sample request.
 */
export async function getTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = TriggerRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const row = await loadTrigger(ctx.db, ws.id, parsed.data.triggerId);
  const [wf] = await ctx.db
    .select({ name: workflows.name, currentVersionId: workflows.currentVersionId })
    .from(workflows)
    .where(eq(workflows.id, row.workflowId));
  const [lastRun] = row.lastRunId
    ? await ctx.db.select({ status: runs.status }).from(runs).where(eq(runs.id, row.lastRunId))
    : [];
  const [pub] = (await describeTriggers(ctx, [row])) as [
    Awaited<ReturnType<typeof describeTriggers>>[number],
  ];
  const deliveries = await deliveryPage(ctx.db, row.id, 20);
  // The sample carries what the current version's inputs need (runs use that version).
  const definition =
    row.kind === "webhook" ? await currentDefinition(ctx.db, ws.id, wf?.currentVersionId) : null;
  return {
    ...pub,
    workflowName: wf?.name ?? null,
    lastRunStatus: lastRun?.status ?? null,
    deliveries: deliveries.items,
    sample:
      row.kind === "webhook" && pub.url
        ? sampleRequest({
            url: pub.url,
            config: WebhookConfig.parse(row.config),
            inputs: definition?.inputs,
          })
        : null,
  };
}
