import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships, users, workspaces } from "@/db/schema";
import { loadTwoFactor } from "./totp";

/** The workspaces of a user whose owners require two-factor (settings.requireTwoFactor). */
export async function workspacesRequiringTwoFactor(db: Queryable, userId: string) {
  return db
    .select({ id: workspaces.id, name: workspaces.name })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(
      and(
        eq(memberships.userId, userId),
        sql`(${workspaces.settings} ->> 'requireTwoFactor') = 'true'`,
      ),
    )
    .orderBy(asc(workspaces.name));
}

/**
 * Whether a password sign-in must be followed by enrolment before anything else: the user belongs
 * to a workspace that requires two-factor and has none enabled. Users without a password only
 * sign in through OAuth, whose provider runs its own second factor, so they are exempt.
 */
export async function needsTwoFactorEnrolment(db: Queryable, userId: string): Promise<boolean> {
  const [user] = await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.id, userId));
  if (!user?.passwordHash) return false;
  if ((await loadTwoFactor(db, userId))?.enabledAt) return false;
  return (await workspacesRequiringTwoFactor(db, userId)).length > 0;
}
