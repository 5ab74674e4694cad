import "server-only";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { endSessions, forgetEndedSessions, requireBrowserUser } from "./own-sessions";

/** Ends the session a browser signs out of (next-auth `events.signOut`); a no-op when already ended. */
export async function signOutSession({ ctx }: { ctx: ServiceContext }) {
  const me = requireBrowserUser(ctx);
  if (!me.sessionId) return { ok: true as const };
  const ended = await ctx.db.transaction(async (tx) => {
    const ids = await endSessions(tx, {
      userId: me.userId,
      only: me.sessionId,
      reason: "sign_out",
      now: ctx.now(),
    });
    if (ids.length > 0)
      await recordAudit(tx, ctx, {
        action: "session.revoke",
        targetType: "session",
        targetId: me.sessionId,
        data: { reason: "sign_out", isCurrent: true },
      });
    return ids;
  });
  forgetEndedSessions(ended);
  return { ok: true as const };
}
