import "server-only";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { userSessions } from "@/db/schema";
import { describeUserAgent } from "@/lib/sessions/describe-user-agent";
import type { ServiceContext } from "../context";
import { requireBrowserUser, SESSION_MAX_AGE_SECONDS } from "./own-sessions";

/** The acting user's live sessions, most recently seen first, the current one marked. */
export async function listSessions({ ctx }: { ctx: ServiceContext }) {
  const me = requireBrowserUser(ctx);
  // Unused past the JWT's lifetime, a session cannot come back: not worth listing.
  const since = new Date(ctx.now().getTime() - SESSION_MAX_AGE_SECONDS * 1000);
  const rows = await ctx.db
    .select()
    .from(userSessions)
    .where(
      and(
        eq(userSessions.userId, me.userId),
        isNull(userSessions.revokedAt),
        gt(userSessions.lastSeenAt, since),
      ),
    )
    .orderBy(desc(userSessions.lastSeenAt), desc(userSessions.id))
    .limit(200);
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.createdAt,
    lastSeenAt: r.lastSeenAt,
    client: {
      summary: describeUserAgent(r.userAgent),
      address: r.clientAddress,
    },
    isCurrent: r.id === me.sessionId,
  }));
}
