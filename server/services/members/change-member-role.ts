import "server-only";
import { and, eq } from "drizzle-orm";
import { memberships } from "@/db/schema";
import { ChangeMemberRoleInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { guardMemberChange } from "./guard-member-change";

export async function changeMemberRole({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = ChangeMemberRoleInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { userId, role } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const target = await guardMemberChange(tx, {
      workspaceId: ws.id,
      actorRole: ws.role,
      targetUserId: userId,
      newRole: role,
    });
    if (target.role === role) return { userId, role, changed: false };
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, userId)));
    await recordAudit(tx, ctx, {
      action: "member.role_changed",
      targetType: "user",
      targetId: userId,
      data: { from: target.role, to: role },
    });
    return { userId, role, changed: true };
  });
}
