import "server-only";
import { count, sql } from "drizzle-orm";
import { memberships, users, workspaces } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { SignUpInput } from "@/lib/schemas/auth";
import { hashPassword } from "../../auth/password";
import { ConflictError, ForbiddenError, fromZodError } from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { withInvitationThrottle } from "../auth-throttle/guard";
import { claimInvitation } from "../invitations/claim-invitation";
import { workspaceSlug } from "../workspaces/slug";

/** Serialises sign-ups so "the first user becomes owner" holds under concurrent requests. */
const SIGNUP_LOCK = 7_041_776_002;

/**
 * Creates an account. The very first user creates a workspace and owns it; after that, sign-up
 * needs an invitation unless open sign-up is configured (then each user gets a workspace).
 */
export async function signUp({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const parsed = SignUpInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Sign-up");
  const data = parsed.data;
  // A sign-up through an invitation link is an attempt at that link (throttled per address).
  if (data.invitationToken) return withInvitationThrottle(ctx, () => createAccount(ctx, data));
  return createAccount(ctx, data);
}

async function createAccount(ctx: ServiceContext, data: SignUpInput) {
  const passwordHash = await hashPassword(data.password);
  const userId = newId("usr");
  const now = ctx.now();

  try {
    return await ctx.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SIGNUP_LOCK})`);
      const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(users);
      const user = {
        id: userId,
        email: data.email,
        name: data.name,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      };

      if (data.invitationToken) {
        await tx.insert(users).values(user);
        const inv = await claimInvitation(tx, ctx, {
          token: data.invitationToken,
          userId,
          email: data.email,
        });
        return { userId, workspaceId: inv.workspaceId, createdWorkspace: false };
      }
      if (n > 0 && !ctx.config.openSignup) {
        throw new ForbiddenError(
          "Sign-up is by invitation only. Ask a workspace admin for an invitation link.",
        );
      }
      await tx.insert(users).values(user);
      const workspaceId = newId("ws");
      const name = data.workspaceName ?? `${data.name.split(" ")[0]}'s workspace`;
      await tx
        .insert(workspaces)
        .values({ id: workspaceId, name, slug: workspaceSlug(name), createdAt: now });
      await tx.insert(memberships).values({ workspaceId, userId, role: "owner", createdAt: now });
      const actorCtx = { ...ctx, actor: { type: "user" as const, userId } };
      await recordAudit(tx, actorCtx, {
        workspaceId,
        action: "user.signed_up",
        targetType: "user",
        targetId: userId,
      });
      await recordAudit(tx, actorCtx, {
        workspaceId,
        action: "workspace.created",
        targetType: "workspace",
        targetId: workspaceId,
        data: { name, firstUser: n === 0 },
      });
      return { userId, workspaceId, createdWorkspace: true };
    });
  } catch (e) {
    if (isUniqueViolation(e, "users_email_key")) {
      throw new ConflictError("An account with this email already exists. Sign in instead.");
    }
    throw e;
  }
}
