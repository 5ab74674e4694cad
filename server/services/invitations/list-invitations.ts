import "server-only";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { invitations, users } from "@/db/schema";
import { requireRole, type ServiceContext } from "../context";

/** Open (not accepted, not revoked, not expired) invitations of the current workspace. */
export async function listInvitations({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "admin");
  return ctx.db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
      invitedByName: users.name,
    })
    .from(invitations)
    .innerJoin(users, eq(users.id, invitations.invitedBy))
    .where(
      and(
        eq(invitations.workspaceId, ws.id),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, ctx.now()),
      ),
    )
    .orderBy(desc(invitations.createdAt));
}
