import "server-only";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships } from "@/db/schema";
import type { Role } from "@/lib/schemas/roles";
import { membershipsOf } from "./list-my-workspaces";

/**
 * The workspace a signed-in request acts in: the one in the session if the user is (still) a
 * member there, else their first membership. Roles are read from the database on every request,
 * so a role change or removal takes effect at once, whatever the session cookie says.
 */
export async function resolveWorkspace(
  db: Db,
  userId: string,
  preferredWorkspaceId?: string | null,
): Promise<{ id: string; role: Role } | undefined> {
  if (preferredWorkspaceId) {
    const [m] = await db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.userId, userId), eq(memberships.workspaceId, preferredWorkspaceId)))
      .limit(1);
    if (m) return { id: preferredWorkspaceId, role: m.role };
  }
  const [first] = await membershipsOf(db, userId);
  return first ? { id: first.id, role: first.role } : undefined;
}
