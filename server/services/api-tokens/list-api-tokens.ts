import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { apiTokens, users } from "@/db/schema";
import { hasRole } from "@/lib/schemas/roles";
import { requireRole, requireUserId, type ServiceContext } from "../context";

/**
 * Tokens of the workspace (never the token itself), newest first, with their state: admins see
 * every member's, other members their own.
 */
export async function listApiTokens({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const userId = requireUserId(ctx);
  const seesAll = hasRole(ws.role, "admin");
  const rows = await ctx.db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      role: apiTokens.role,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      createdBy: apiTokens.createdBy,
      createdByName: users.name,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(
      and(eq(apiTokens.workspaceId, ws.id), seesAll ? undefined : eq(apiTokens.createdBy, userId)),
    )
    .orderBy(desc(apiTokens.createdAt));
  const now = ctx.now().getTime();
  return rows.map(({ createdBy, ...r }) => ({
    ...r,
    isMine: createdBy === userId,
    status: r.revokedAt
      ? "revoked"
      : r.expiresAt && r.expiresAt.getTime() < now
        ? "expired"
        : "active",
  }));
}
