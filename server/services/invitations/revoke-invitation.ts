import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { invitations } from "@/db/schema";
import { InvitationIdInput } from "@/lib/schemas/workspace";
import { NotFoundError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

export async function revokeInvitation({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = InvitationIdInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { invitationId } = parsed.data;
  await ctx.db.transaction(async (tx) => {
    const done = await tx
      .update(invitations)
      .set({ revokedAt: ctx.now() })
      .where(
        and(
          eq(invitations.id, invitationId),
          eq(invitations.workspaceId, ws.id),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      )
      .returning({ id: invitations.id });
    if (done.length !== 1) throw new NotFoundError("Open invitation", invitationId);
    await recordAudit(tx, ctx, {
      action: "invitation.revoked",
      targetType: "invitation",
      targetId: invitationId,
    });
  });
  return { ok: true as const };
}
