import "server-only";
import { asc, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships, workspaces } from "@/db/schema";
import { requireUserId, type ServiceContext } from "../context";

export async function membershipsOf(db: Queryable, userId: string) {
  return db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      slug: workspaces.slug,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(workspaces.name));
}

/** Every workspace the acting user belongs to, with their role, oldest membership first. */
export async function listMyWorkspaces({ ctx }: { ctx: ServiceContext }) {
  return membershipsOf(ctx.db, requireUserId(ctx));
}
