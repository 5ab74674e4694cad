import "server-only";
import { and, eq } from "drizzle-orm";
import { secrets } from "@/db/schema";
import { UpdateSecretInput } from "@/lib/schemas/secrets";
import { NotFoundError, fromZodError } from "../../errors";
import { createSecretCipher } from "../../secrets/crypto";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { actingUserId } from "./acting-user";

/** Replaces a secret's value (re-encrypted with a fresh IV). Runs already started keep the old value. */
export async function updateSecret({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateSecretInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Secret");
  const { name, value } = parsed.data;
  const encrypted = createSecretCipher(ctx.keys).encrypt(value, { workspaceId: ws.id, name });
  const now = ctx.now();
  await ctx.db.transaction(async (tx) => {
    const done = await tx
      .update(secrets)
      .set({ ...encrypted, updatedAt: now, updatedBy: actingUserId(ctx) })
      .where(and(eq(secrets.workspaceId, ws.id), eq(secrets.name, name)))
      .returning({ id: secrets.id });
    if (done.length !== 1) throw new NotFoundError("Secret", name);
    await recordAudit(tx, ctx, {
      action: "secret.updated",
      targetType: "secret",
      targetId: name,
      data: { name },
    });
  });
  return { name, updatedAt: now };
}
