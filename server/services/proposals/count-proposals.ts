import "server-only";
import { and, eq, gt } from "drizzle-orm";
import { proposals } from "@/db/schema";
import { hasRole } from "@/lib/schemas/roles";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { readRawSettings } from "../settings/read-settings";
import { reviewRefusal } from "./proposal-rules";

/** Pending proposals the caller could approve right now (the sidebar badge). */
export async function countProposals({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  if (!hasRole(ws.role, "approver")) return { pendingReview: 0 };
  const userId = requireUserId(ctx);
  const now = ctx.now();
  const rows = await ctx.db
    .select()
    .from(proposals)
    .where(
      and(
        eq(proposals.workspaceId, ws.id),
        eq(proposals.status, "pending"),
        gt(proposals.expiresAt, now),
      ),
    );
  const settings = await readRawSettings(ctx.db, ws.id);
  const allowSelfApproval = settings.allowSelfApproval === true;
  return {
    pendingReview: rows.filter(
      (p) =>
        reviewRefusal(p, { userId, role: ws.role }, "approve", { allowSelfApproval, now }) === null,
    ).length,
  };
}
