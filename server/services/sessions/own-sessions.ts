import "server-only";
import { and, eq, isNull, ne, type SQL } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { userSessions } from "@/db/schema";
import type { SessionEndReason } from "@/lib/schemas/sessions";
import { ForbiddenError, UnauthorizedError } from "../../errors";
import type { ServiceContext } from "../context";
import { sessionChecker } from "./check-session";

/** A session JWT lives this long after its last use (next-auth `session.maxAge`). */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/**
 * The signed-in browser user acting on their own sessions. API tokens are refused: a leaked token
 * must not be able to sign its owner out, or list where they are signed in.
 */
export function requireBrowserUser(ctx: ServiceContext): { userId: string; sessionId?: string } {
  if (ctx.actor.type === "user")
    return { userId: ctx.actor.userId, sessionId: ctx.actor.sessionId };
  if (ctx.actor.type === "token")
    throw new ForbiddenError("Sessions and passwords are managed from a signed-in browser");
  throw new UnauthorizedError();
}

/**
 * Revokes a user's live sessions (all, one, or all but one) and returns the ids it ended. Always
 * scoped to `userId`, so no caller can end another user's session by naming its id.
 */
export async function endSessions(
  tx: Queryable,
  input: { userId: string; only?: string; except?: string; reason: SessionEndReason; now: Date },
): Promise<string[]> {
  const where: SQL[] = [eq(userSessions.userId, input.userId), isNull(userSessions.revokedAt)];
  if (input.only !== undefined) where.push(eq(userSessions.id, input.only));
  if (input.except !== undefined) where.push(ne(userSessions.id, input.except));
  const ended = await tx
    .update(userSessions)
    .set({ revokedAt: input.now, revokedReason: input.reason })
    .where(and(...where))
    .returning({ id: userSessions.id });
  return ended.map((r) => r.id);
}

/** After the revoking transaction committed: this process stops trusting those sessions at once. */
export function forgetEndedSessions(sessionIds: readonly string[]): void {
  sessionChecker.forget(sessionIds);
}
