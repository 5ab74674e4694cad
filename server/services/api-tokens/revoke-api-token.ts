import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens } from "@/db/schema";
import { RevokeApiTokenInput } from "@/lib/schemas/api-tokens";
import { hasRole } from "@/lib/schemas/roles";
import { NotFoundError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

/**
 * Revokes a token: admins any of the workspace's, other members only their own (someone else's
 * token is NotFound to them, exactly like a token that does not exist).
 */
export async function revokeApiToken({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const userId = requireUserId(ctx);
  const parsed = RevokeApiTokenInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { tokenId } = parsed.data;
  await ctx.db.transaction(async (tx) => {
    const done = await tx
      .update(apiTokens)
      .set({ revokedAt: ctx.now() })
      .where(
        and(
          eq(apiTokens.id, tokenId),
          eq(apiTokens.workspaceId, ws.id),
          isNull(apiTokens.revokedAt),
          hasRole(ws.role, "admin") ? undefined : eq(apiTokens.createdBy, userId),
        ),
      )
      .returning({ id: apiTokens.id });
    if (done.length !== 1) throw new NotFoundError("Active API token", tokenId);
    await recordAudit(tx, ctx, {
      action: "api_token.revoked",
      targetType: "api_token",
      targetId: tokenId,
    });
  });
  return { ok: true as const };
}
