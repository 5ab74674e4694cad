import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships } from "@/db/schema";
import { recordAudit } from "../audit/record-audit";
import type { ServiceContext } from "../context";

/**
 * A change to a user's own second factor concerns every workspace they can reach (an owner who
 * requires two-factor wants to see who enrolled or spent a recovery code), so it is recorded once
 * per membership — or once without a workspace for a user who has none.
 */
export async function recordTwoFactorAudit(
  tx: Queryable,
  ctx: ServiceContext,
  userId: string,
  action: string,
  data?: Record<string, unknown>,
): Promise<void> {
  const rows = await tx
    .select({ workspaceId: memberships.workspaceId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  const workspaceIds = rows.length ? rows.map((r) => r.workspaceId) : [null];
  for (const workspaceId of workspaceIds)
    await recordAudit(tx, ctx, { action, targetType: "user", targetId: userId, data, workspaceId });
}
