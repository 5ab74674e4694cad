import "server-only";
import { eq } from "drizzle-orm";
import { triggers } from "@/db/schema";
import { TakeOverTriggerInput } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { loadTrigger } from "./load-trigger";
import { describeTriggers } from "./describe-triggers";

/**
 * An editor becomes the trigger's owner: from now on its runs count against them (and they are
 * its runs' initiator for approvals). The way to revive a trigger whose owner left or was
 * deleted; a token acts for its creator.
 */
export async function takeOverTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = TakeOverTriggerInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Trigger");
  const userId = requireUserId(ctx);
  const row = await ctx.db.transaction(async (tx) => {
    const current = await loadTrigger(tx, ws.id, parsed.data.triggerId, { forUpdate: true });
    const [updated] = await tx
      .update(triggers)
      // Not an edit of the trigger's settings: updated_at (a schedule's planning restart) stays.
      .set({ createdBy: userId })
      .where(eq(triggers.id, current.id))
      .returning();
    await recordAudit(tx, ctx, {
      action: "trigger.taken_over",
      targetType: "trigger",
      targetId: current.id,
      data: { previousOwner: current.createdBy, owner: userId },
    });
    return updated!;
  });
  const [described] = await describeTriggers(ctx, [row]);
  return described!;
}
