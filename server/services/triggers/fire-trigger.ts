import "server-only";
import { triggerDeliveries } from "@/db/schema";
import { newId } from "@/lib/ids";
import { FireTriggerInput } from "@/lib/schemas/triggers";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { loadTrigger } from "./load-trigger";
import { startTriggerRun } from "./start-trigger-run";

/** "Fire now": starts a run as the trigger would, initiated by the user, with its static input. */
export async function fireTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = FireTriggerInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const userId = requireUserId(ctx);
  return ctx.db.transaction(async (tx) => {
    const trigger = await loadTrigger(tx, ws.id, parsed.data.triggerId);
    const config = trigger.config as { input?: Record<string, unknown> };
    const runInput = parsed.data.input ?? config.input ?? {};
    const r = await startTriggerRun(tx, ctx, trigger, {
      input: runInput,
      payload: { firedBy: userId, manual: true },
      idempotencyKey: null,
      initiator: { type: "user", id: userId },
    });
    await tx.insert(triggerDeliveries).values({
      id: newId("dlv"),
      workspaceId: ws.id,
      triggerId: trigger.id,
      receivedAt: ctx.now(),
      status: "accepted",
      reason: "fired manually",
      runId: r.run.id,
      request: { manual: true },
    });
    await recordAudit(tx, ctx, {
      action: "trigger.fired",
      targetType: "trigger",
      targetId: trigger.id,
      data: { runId: r.run.id },
    });
    return { runId: r.run.id, status: r.run.status };
  });
}
