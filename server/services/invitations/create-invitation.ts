import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { invitations, memberships, users } from "@/db/schema";
import { newId } from "@/lib/ids";
import { hasRole } from "@/lib/schemas/roles";
import { InviteMemberInput } from "@/lib/schemas/workspace";
import { sha256Hex } from "../../keys";
import { ConflictError, ForbiddenError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** Creates an invitation and returns its link once (only a hash of the token is stored). */
export async function createInvitation({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = InviteMemberInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Invitation");
  const { email, role } = parsed.data;
  if (!hasRole(ws.role, role))
    throw new ForbiddenError(`You cannot invite someone as ${role}: it is above your role`);
  if (role === "owner" && ws.role !== "owner")
    throw new ForbiddenError("Only owners can invite owners");
  const invitedBy = requireUserId(ctx);
  const token = `inv_${randomBytes(32).toString("base64url")}`;
  const id = newId("inv");
  const expiresAt = new Date(ctx.now().getTime() + INVITATION_TTL_MS);

  await ctx.db.transaction(async (tx) => {
    const member = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.workspaceId, ws.id), eq(users.email, email)))
      .limit(1);
    if (member.length) throw new ConflictError(`${email} is already a member of this workspace`);
    // A new invitation replaces any open one for the same address.
    await tx
      .update(invitations)
      .set({ revokedAt: ctx.now() })
      .where(
        and(
          eq(invitations.workspaceId, ws.id),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      );
    await tx.insert(invitations).values({
      id,
      workspaceId: ws.id,
      email,
      role,
      tokenHash: sha256Hex(token),
      invitedBy,
      createdAt: ctx.now(),
      expiresAt,
    });
    await recordAudit(tx, ctx, {
      action: "invitation.created",
      targetType: "invitation",
      targetId: id,
      data: { email, role },
    });
  });
  return { id, email, role, expiresAt, link: `${ctx.config.publicUrl}/invite/${token}`, token };
}
