import "server-only";
import { desc, eq } from "drizzle-orm";
import { apiTokens, users } from "@/db/schema";
import { requireRole, type ServiceContext } from "../context";

/** Every token of the workspace (never the token itself), newest first, with its state. */
export async function listApiTokens({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "admin");
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
      createdByName: users.name,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(eq(apiTokens.workspaceId, ws.id))
    .orderBy(desc(apiTokens.createdAt));
  const now = ctx.now().getTime();
  return rows.map((r) => ({
    ...r,
    status: r.revokedAt
      ? "revoked"
      : r.expiresAt && r.expiresAt.getTime() < now
        ? "expired"
        : "active",
  }));
}
