import "server-only";
import { RevokeSessionInput } from "@/lib/schemas/sessions";
import { fromZodError, NotFoundError } from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { endSessions, forgetEndedSessions, requireBrowserUser } from "./own-sessions";

/**
 * Signs out one of the acting user's sessions ("Sign out this session"). Another user's session id
 * answers NotFound, exactly like an unknown one, so ids cannot be probed.
 */
export async function revokeSession({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const me = requireBrowserUser(ctx);
  const parsed = RevokeSessionInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { sessionId } = parsed.data;
  const ended = await ctx.db.transaction(async (tx) => {
    const ids = await endSessions(tx, {
      userId: me.userId,
      only: sessionId,
      reason: "revoked",
      now: ctx.now(),
    });
    if (ids.length === 0) throw new NotFoundError("Session", sessionId);
    await recordAudit(tx, ctx, {
      action: "session.revoke",
      targetType: "session",
      targetId: sessionId,
      data: { isCurrent: sessionId === me.sessionId },
    });
    return ids;
  });
  forgetEndedSessions(ended);
  return { ok: true as const };
}
