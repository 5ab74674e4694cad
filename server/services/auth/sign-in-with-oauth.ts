import "server-only";
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { invitations, memberships, oauthAccounts, users, workspaces } from "@/db/schema";
import { newId } from "@/lib/ids";
import { ForbiddenError } from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { recordUserAudit } from "../audit/record-user-audit";
import { workspaceSlug } from "../workspaces/slug";

const SIGNUP_LOCK = 7_041_776_002;

/**
 * Maps an OAuth identity to a Sluice user. A linked identity signs in. A new identity creates a
 * user only under the sign-up policy (first user, open sign-up, or an open invitation for the
 * same email). An existing password account is never linked automatically: the provider's email
 * alone is not proof of owning that account.
 */
export async function signInWithOAuth({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    provider: string;
    providerAccountId: string;
    email?: string | null;
    name?: string | null;
  };
}): Promise<{ userId: string }> {
  const [linked] = await ctx.db
    .select({ userId: oauthAccounts.userId })
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.provider, input.provider),
        eq(oauthAccounts.providerAccountId, input.providerAccountId),
      ),
    )
    .limit(1);
  if (linked) {
    await recordUserAudit(ctx.db, ctx, {
      user: { id: linked.userId },
      actor: "user",
      action: "auth.sign_in",
      data: { method: input.provider },
    });
    return linked;
  }
  const email = input.email?.trim().toLowerCase();
  if (!email)
    throw new ForbiddenError(`Your ${input.provider} account has no public email address`);
  const now = ctx.now();

  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SIGNUP_LOCK})`);
    const [existing] = await tx
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, email))
      .limit(1);
    if (existing) {
      throw new ForbiddenError(
        `An account for ${email} already exists: sign in with your password`,
      );
    }
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(users);
    const [invite] = await tx
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          gt(invitations.expiresAt, now),
        ),
      )
      .limit(1);
    if (n > 0 && !ctx.config.openSignup && !invite) {
      throw new ForbiddenError(
        "Sign-up is by invitation only. Ask a workspace admin for an invitation link.",
      );
    }
    const userId = newId("usr");
    const name = input.name?.trim() || email.split("@")[0]!;
    await tx
      .insert(users)
      .values({ id: userId, email, name, passwordHash: null, createdAt: now, updatedAt: now });
    await tx.insert(oauthAccounts).values({
      id: newId("acct"),
      userId,
      provider: input.provider,
      providerAccountId: input.providerAccountId,
      createdAt: now,
    });
    const actorCtx = { ...ctx, actor: { type: "user" as const, userId } };
    if (!invite) {
      // First user or open sign-up: a workspace of their own. Invited users accept on the link.
      const workspaceId = newId("ws");
      const wsName = `${name.split(" ")[0]}'s workspace`;
      await tx
        .insert(workspaces)
        .values({ id: workspaceId, name: wsName, slug: workspaceSlug(wsName), createdAt: now });
      await tx.insert(memberships).values({ workspaceId, userId, role: "owner", createdAt: now });
      await recordAudit(tx, actorCtx, {
        workspaceId,
        action: "workspace.created",
        targetType: "workspace",
        targetId: workspaceId,
      });
    }
    await recordAudit(tx, actorCtx, {
      workspaceId: null,
      action: "user.signed_up",
      targetType: "user",
      targetId: userId,
      data: { provider: input.provider },
    });
    return { userId };
  });
}
