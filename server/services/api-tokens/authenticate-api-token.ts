import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiTokens, memberships } from "@/db/schema";
import { API_TOKEN_PREFIX } from "@/lib/schemas/api-tokens";
import { ROLES, roleRank, type Role } from "@/lib/schemas/roles";
import { safeEqual } from "@/lib/server-only/safe-equal";
import { sha256Hex } from "../../keys";

export interface TokenIdentity {
  tokenId: string;
  userId: string;
  workspaceId: string;
  role: Role;
}

/**
 * Resolves `Authorization: Bearer slu_…`. Valid while not revoked, not expired and its creator is
 * still a member; the effective role is the lower of the token's role and the creator's role.
 */
export async function authenticateApiToken(
  db: Db,
  raw: string | null | undefined,
  now: Date,
): Promise<TokenIdentity | null> {
  if (!raw || !raw.startsWith(API_TOKEN_PREFIX) || raw.length > 200) return null;
  const hash = sha256Hex(raw);
  const [row] = await db
    .select({
      id: apiTokens.id,
      tokenHash: apiTokens.tokenHash,
      workspaceId: apiTokens.workspaceId,
      role: apiTokens.role,
      createdBy: apiTokens.createdBy,
      expiresAt: apiTokens.expiresAt,
      lastUsedAt: apiTokens.lastUsedAt,
      memberRole: memberships.role,
    })
    .from(apiTokens)
    .innerJoin(
      memberships,
      and(
        eq(memberships.workspaceId, apiTokens.workspaceId),
        eq(memberships.userId, apiTokens.createdBy),
      ),
    )
    .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
    .limit(1);
  // The lookup is by hash; the comparison below is constant-time defence in depth.
  if (!row || !safeEqual(row.tokenHash, hash)) return null;
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return null;
  // Touch last_used_at at most once a minute to keep the hot path free of writes.
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id));
  }
  const role = ROLES[Math.min(roleRank(row.role), roleRank(row.memberRole))]!;
  return { tokenId: row.id, userId: row.createdBy, workspaceId: row.workspaceId, role };
}
