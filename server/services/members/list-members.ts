import "server-only";
import { asc, eq } from "drizzle-orm";
import { memberships, users } from "@/db/schema";
import { requireRole, type ServiceContext } from "../context";

export async function listMembers({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  return ctx.db
    .select({
      userId: users.id,
      name: users.name,
      email: users.email,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, ws.id))
    .orderBy(asc(memberships.createdAt));
}
