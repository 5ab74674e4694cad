import "server-only";
import { and, count, eq, isNull } from "drizzle-orm";
import { apiTokens, memberships, users } from "@/db/schema";
import { RemoveMemberInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { endSessions, forgetEndedSessions } from "../sessions/own-sessions";
import { guardMemberChange } from "./guard-member-change";

/** Admins remove members; anyone may remove themselves (leave), except the last owner. */
export async function removeMember({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const parsed = RemoveMemberInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { userId } = parsed.data;
  const isSelf = ctx.actor.type === "user" && requireUserId(ctx) === userId;
  const ws = requireRole(ctx, isSelf ? "viewer" : "admin");
  const ended = await ctx.db.transaction(async (tx) => {
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
    // Removed from their last workspace by someone else: signed out everywhere, now. (Leaving on
    // one's own keeps the session, so the person can create or join another workspace.)
    if (isSelf) return [];
    // The user row serialises concurrent removals, so the last one always sees zero memberships.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [remaining] = await tx
      .select({ n: count() })
      .from(memberships)
      .where(eq(memberships.userId, userId));
    if ((remaining?.n ?? 0) > 0) return [];
    const ids = await endSessions(tx, {
      userId,
      reason: "removed_from_workspaces",
      now: ctx.now(),
    });
    await recordAudit(tx, ctx, {
      action: "session.revoke_all",
      targetType: "user",
      targetId: userId,
      data: { reason: "removed_from_workspaces", count: ids.length },
    });
    return ids;
  });
  forgetEndedSessions(ended);
  return { ok: true as const };
}
