import "server-only";
import { lt, or } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { userSessions } from "@/db/schema";
import { SESSION_MAX_AGE_SECONDS } from "./own-sessions";

/**
 * Daily retention: rows whose JWT has expired (unused for the session lifetime) or that were
 * revoked that long ago. Safe at any time: a missing row reads as a signed-out session.
 */
export async function pruneSessions(db: Queryable, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SESSION_MAX_AGE_SECONDS * 1000 - 86_400_000);
  const gone = await db
    .delete(userSessions)
    .where(or(lt(userSessions.lastSeenAt, cutoff), lt(userSessions.revokedAt, cutoff)))
    .returning({ id: userSessions.id });
  return gone.length;
}
