import "server-only";
import { eq } from "drizzle-orm";
import { triggers } from "@/db/schema";
import { RotateWebhookSecretInput } from "@/lib/schemas/triggers";
import { fromZodError, PreconditionFailedError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { loadTrigger, publicTrigger } from "./load-trigger";
import { generateWebhookSecret, sealWebhookSecret } from "./trigger-secret";

/**
 * Replaces a webhook's signing secret. The old one keeps verifying for `graceMinutes` (senders
 * switch without dropped deliveries); the new secret is returned once.
 */
export async function rotateWebhookSecret({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RotateWebhookSecretInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rotation");
  const { triggerId, graceMinutes } = parsed.data;
  const secret = generateWebhookSecret();
  const now = ctx.now();
  const row = await ctx.db.transaction(async (tx) => {
    const current = await loadTrigger(tx, ws.id, triggerId, { forUpdate: true });
    if (current.kind !== "webhook" || !current.secret)
      throw new PreconditionFailedError("Only webhook triggers have a signing secret");
    const [updated] = await tx
      .update(triggers)
      .set({
        secret: sealWebhookSecret(ctx.keys, ws.id, current.id, secret),
        previousSecret: graceMinutes > 0 ? current.secret : null,
        previousSecretExpiresAt:
          graceMinutes > 0 ? new Date(now.getTime() + graceMinutes * 60_000) : null,
        updatedAt: now,
      })
      .where(eq(triggers.id, current.id))
      .returning();
    await recordAudit(tx, ctx, {
      action: "trigger.secret_rotated",
      targetType: "trigger",
      targetId: current.id,
      data: { graceMinutes },
    });
    return updated!;
  });
  return { trigger: publicTrigger(row, ctx.config.publicUrl), secret };
}
