import "server-only";
import { secrets } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { CreateSecretInput } from "@/lib/schemas/secrets";
import { ConflictError, fromZodError } from "../../errors";
import { createSecretCipher } from "../../secrets/crypto";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { actingUserId } from "./acting-user";

/** Stores a new encrypted secret. The value is never returned, logged or audited. */
export async function createSecret({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = CreateSecretInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Secret");
  const { name, value } = parsed.data;
  const encrypted = createSecretCipher(ctx.keys).encrypt(value, { workspaceId: ws.id, name });
  const now = ctx.now();
  const userId = actingUserId(ctx);
  try {
    await ctx.db.transaction(async (tx) => {
      await tx.insert(secrets).values({
        id: newId("sec"),
        workspaceId: ws.id,
        name,
        ...encrypted,
        createdAt: now,
        createdBy: userId,
        updatedAt: now,
        updatedBy: userId,
      });
      await recordAudit(tx, ctx, {
        action: "secret.created",
        targetType: "secret",
        targetId: name,
        data: { name },
      });
    });
  } catch (e) {
    if (isUniqueViolation(e, "secrets_workspace_name_key"))
      throw new ConflictError(`A secret named ${name} already exists; update its value instead.`);
    throw e;
  }
  return { name, createdAt: now, updatedAt: now };
}
