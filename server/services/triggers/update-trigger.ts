import "server-only";
import { eq } from "drizzle-orm";
import { triggers } from "@/db/schema";
import { UpdateTriggerInput } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { loadTrigger, parseTriggerConfigForSave, publicTrigger } from "./load-trigger";

/** Renames a trigger and/or replaces its config (validated for the trigger's kind). */
export async function updateTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = UpdateTriggerInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Trigger");
  const { triggerId, name, config } = parsed.data;
  const row = await ctx.db.transaction(async (tx) => {
    const current = await loadTrigger(tx, ws.id, triggerId, { forUpdate: true });
    const nextConfig = config
      ? await parseTriggerConfigForSave(tx, ctx, ws.id, current.workflowId, current.kind, config)
      : current.config;
    const [updated] = await tx
      .update(triggers)
      .set({
        name: name ?? current.name,
        config: nextConfig,
        eventName: current.kind === "event" ? String(nextConfig.event) : null,
        updatedAt: ctx.now(),
      })
      .where(eq(triggers.id, current.id))
      .returning();
    await recordAudit(tx, ctx, {
      action: "trigger.updated",
      targetType: "trigger",
      targetId: current.id,
      data: { name: name ?? current.name, configChanged: !!config },
    });
    return updated!;
  });
  return publicTrigger(row, ctx.config.publicUrl);
}
