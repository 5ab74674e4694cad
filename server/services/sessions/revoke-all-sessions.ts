import "server-only";
import { RevokeAllSessionsInput } from "@/lib/schemas/sessions";
import { fromZodError } from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { endSessions, forgetEndedSessions, requireBrowserUser } from "./own-sessions";

/** "Sign out everywhere else" (keeps the current session) or "Sign out everywhere". */
export async function revokeAllSessions({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const me = requireBrowserUser(ctx);
  const parsed = RevokeAllSessionsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const ended = await ctx.db.transaction(async (tx) => {
    const ids = await endSessions(tx, {
      userId: me.userId,
      except: parsed.data.exceptCurrent ? me.sessionId : undefined,
      reason: "revoked_all",
      now: ctx.now(),
    });
    await recordAudit(tx, ctx, {
      action: "session.revoke_all",
      targetType: "user",
      targetId: me.userId,
      data: { exceptCurrent: parsed.data.exceptCurrent, count: ids.length },
    });
    return ids;
  });
  forgetEndedSessions(ended);
  return { revoked: ended.length };
}
