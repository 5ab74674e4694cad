import "server-only";
import { eq } from "drizzle-orm";
import { triggers } from "@/db/schema";
import { TriggerRef } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { loadTrigger } from "./load-trigger";

/** Deletes a trigger with its deliveries and ticks; runs it started stay. */
export async function deleteTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = TriggerRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Trigger");
  await ctx.db.transaction(async (tx) => {
    const current = await loadTrigger(tx, ws.id, parsed.data.triggerId, { forUpdate: true });
    await tx.delete(triggers).where(eq(triggers.id, current.id));
    await recordAudit(tx, ctx, {
      action: "trigger.deleted",
      targetType: "trigger",
      targetId: current.id,
      data: { kind: current.kind, name: current.name, workflowId: current.workflowId },
    });
  });
  return { ok: true as const };
}
