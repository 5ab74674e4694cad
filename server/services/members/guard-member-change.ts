import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships } from "@/db/schema";
import { roleRank, type Role } from "@/lib/schemas/roles";
import { ForbiddenError, NotFoundError, PreconditionFailedError } from "../../errors";

/**
 * Rules shared by role changes and removals: you cannot act on someone who outranks you, only
 * owners touch owners, and a workspace always keeps at least one owner. Locks the member row.
 */
export async function guardMemberChange(
  tx: Queryable,
  {
    workspaceId,
    actorRole,
    targetUserId,
    newRole,
  }: { workspaceId: string; actorRole: Role; targetUserId: string; newRole?: Role },
) {
  const [target] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, targetUserId)))
    .for("update")
    .limit(1);
  if (!target) throw new NotFoundError("Member", targetUserId);
  if (roleRank(target.role) > roleRank(actorRole))
    throw new ForbiddenError(
      `You cannot change a member whose role (${target.role}) is above yours`,
    );
  if (newRole && roleRank(newRole) > roleRank(actorRole))
    throw new ForbiddenError(`You cannot grant ${newRole}: it is above your role`);
  if ((target.role === "owner" || newRole === "owner") && actorRole !== "owner")
    throw new ForbiddenError("Only owners can grant or change the owner role");
  if (target.role === "owner" && newRole !== "owner") {
    const owners = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, "owner")))
      .for("update");
    if (owners.length <= 1)
      throw new PreconditionFailedError(
        "A workspace needs at least one owner: make someone else owner first",
      );
  }
  return target;
}
