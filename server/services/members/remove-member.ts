import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, memberships } from "@/db/schema";
import { RemoveMemberInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { guardMemberChange } from "./guard-member-change";

/** Admins remove members; anyone may remove themselves (leave), except the last owner. */
export async function removeMember({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const parsed = RemoveMemberInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { userId } = parsed.data;
  const isSelf = ctx.actor.type === "user" && requireUserId(ctx) === userId;
  const ws = requireRole(ctx, isSelf ? "viewer" : "admin");
  return ctx.db.transaction(async (tx) => {
    const target = await guardMemberChange(tx, {
      workspaceId: ws.id,
      actorRole: isSelf ? "owner" : ws.role,
      targetUserId: userId,
    });
    await tx
      .delete(memberships)
      .where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, userId)));
    // Their tokens in this workspace stop working with them.
    await tx
      .update(apiTokens)
      .set({ revokedAt: ctx.now() })
      .where(
        and(
          eq(apiTokens.workspaceId, ws.id),
          eq(apiTokens.createdBy, userId),
          isNull(apiTokens.revokedAt),
        ),
      );
    await recordAudit(tx, ctx, {
      action: isSelf ? "member.left" : "member.removed",
      targetType: "user",
      targetId: userId,
      data: { role: target.role },
    });
    return { ok: true as const };
  });
}
