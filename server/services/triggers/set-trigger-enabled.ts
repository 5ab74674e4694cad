import "server-only";
import { eq } from "drizzle-orm";
import { triggers } from "@/db/schema";
import { SetTriggerEnabledInput } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { loadTrigger, publicTrigger } from "./load-trigger";

export async function setTriggerEnabled({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = SetTriggerEnabledInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Trigger");
  const row = await ctx.db.transaction(async (tx) => {
    const current = await loadTrigger(tx, ws.id, parsed.data.triggerId, { forUpdate: true });
    const [updated] = await tx
      .update(triggers)
      .set({ enabled: parsed.data.enabled, updatedAt: ctx.now() })
      .where(eq(triggers.id, current.id))
      .returning();
    await recordAudit(tx, ctx, {
      action: parsed.data.enabled ? "trigger.enabled" : "trigger.disabled",
      targetType: "trigger",
      targetId: current.id,
    });
    return updated!;
  });
  return publicTrigger(row, ctx.config.publicUrl);
}
