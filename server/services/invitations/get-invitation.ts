import "server-only";
import { eq } from "drizzle-orm";
import { invitations, users, workspaces } from "@/db/schema";
import { InvitationTokenInput } from "@/lib/schemas/workspace";
import { sha256Hex } from "../../keys";
import { NotFoundError, fromZodError } from "../../errors";
import type { ServiceContext } from "../context";
import { withInvitationThrottle } from "../auth-throttle/guard";

/**
 * What an invitation link offers, for the accept page. Anyone holding the link may read this
 * (the token is the credential); it reveals only the workspace name, inviter, email and role.
 * Unknown links count against the client's invitation throttle (guessing links is refused).
 */
export async function getInvitation({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const parsed = InvitationTokenInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const row = await withInvitationThrottle(ctx, () => findInvitation(ctx, parsed.data.token));
  const [existing] = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, row.email))
    .limit(1);
  const status = row.revokedAt
    ? "revoked"
    : row.acceptedAt
      ? "accepted"
      : row.expiresAt.getTime() < ctx.now().getTime()
        ? "expired"
        : "open";
  return {
    email: row.email,
    role: row.role,
    workspaceName: row.workspaceName,
    invitedByName: row.invitedByName,
    expiresAt: row.expiresAt,
    status: status as "open" | "accepted" | "revoked" | "expired",
    hasAccount: Boolean(existing),
  };
}

async function findInvitation(ctx: ServiceContext, token: string) {
  const [row] = await ctx.db
    .select({
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      acceptedAt: invitations.acceptedAt,
      revokedAt: invitations.revokedAt,
      workspaceName: workspaces.name,
      invitedByName: users.name,
    })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .innerJoin(users, eq(users.id, invitations.invitedBy))
    .where(eq(invitations.tokenHash, sha256Hex(token)))
    .limit(1);
  if (!row) throw new NotFoundError("Invitation");
  return row;
}
