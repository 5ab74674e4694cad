import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { invitations, memberships, workspaces } from "@/db/schema";
import { sha256Hex } from "../../keys";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
} from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

/**
 * Marks an invitation accepted by `userId` and adds the membership — inside the caller's
 * transaction. Compare-and-set on accepted_at, so one link is used once even under races.
 */
export async function claimInvitation(
  tx: Queryable,
  ctx: ServiceContext,
  { token, userId, email }: { token: string; userId: string; email: string },
) {
  const [inv] = await tx
    .select()
    .from(invitations)
    .where(eq(invitations.tokenHash, sha256Hex(token)))
    .limit(1);
  if (!inv) throw new NotFoundError("Invitation");
  if (inv.revokedAt) throw new PreconditionFailedError("This invitation was revoked");
  if (inv.acceptedAt) throw new PreconditionFailedError("This invitation was already used");
  if (inv.expiresAt.getTime() < ctx.now().getTime())
    throw new PreconditionFailedError("This invitation has expired");
  if (inv.email !== email.toLowerCase()) {
    throw new ForbiddenError(`This invitation is for ${inv.email}; you are signed in as ${email}`);
  }
  const claimed = await tx
    .update(invitations)
    .set({ acceptedAt: ctx.now(), acceptedBy: userId })
    .where(
      and(
        eq(invitations.id, inv.id),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ id: invitations.id });
  if (claimed.length !== 1) throw new PreconditionFailedError("This invitation was already used");

  const [existing] = await tx
    .select()
    .from(memberships)
    .where(and(eq(memberships.workspaceId, inv.workspaceId), eq(memberships.userId, userId)))
    .limit(1);
  if (existing) throw new ConflictError("You are already a member of this workspace");
  await tx
    .insert(memberships)
    .values({ workspaceId: inv.workspaceId, userId, role: inv.role, createdAt: ctx.now() });
  const [ws] = await tx
    .select({ name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.id, inv.workspaceId));
  await recordAudit(
    tx,
    { ...ctx, actor: { type: "user", userId } },
    {
      workspaceId: inv.workspaceId,
      action: "invitation.accepted",
      targetType: "invitation",
      targetId: inv.id,
      data: { role: inv.role, email: inv.email },
    },
  );
  return { workspaceId: inv.workspaceId, workspaceName: ws?.name ?? "", role: inv.role };
}
