import "server-only";
import { and, eq, isNull, lte } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Queryable } from "@/db/client";
import { userSessions } from "@/db/schema";

/** How long one process trusts what it read about a session: revocation elsewhere lands within it. */
export const SESSION_CHECK_TTL_MS = 5_000;
/** last_seen_at moves at most this often, so an active browser costs no write per request. */
export const TOUCH_EVERY_MS = 60_000;

interface Entry {
  userId: string;
  isActive: boolean;
  checkedMs: number;
}

/**
 * Per-process memory of session checks, bounded (LRU) and short-lived (`ttlMs`, judged against the
 * caller's clock so tests move time instead of sleeping). Revocations in this process call
 * `forget`, so they take effect here at once; other processes see them within `ttlMs`.
 */
export class SessionChecker {
  private readonly entries: LRUCache<string, Entry>;

  constructor(private readonly opts: { ttlMs: number; max?: number }) {
    this.entries = new LRUCache<string, Entry>({ max: opts.max ?? 10_000 });
  }

  /** Whether the session is live and belongs to `userId`; touches last_seen_at when it is due. */
  async check(
    db: Queryable,
    input: { sessionId: string; userId: string },
    now: Date,
  ): Promise<boolean> {
    const nowMs = now.getTime();
    let entry = this.entries.get(input.sessionId);
    if (!entry || nowMs - entry.checkedMs >= this.opts.ttlMs) {
      entry = await this.load(db, input.sessionId, now);
      this.entries.set(input.sessionId, entry);
    }
    return entry.isActive && entry.userId === input.userId;
  }

  forget(sessionIds: readonly string[]): void {
    for (const id of sessionIds) this.entries.delete(id);
  }

  private async load(db: Queryable, sessionId: string, now: Date): Promise<Entry> {
    const [row] = await db
      .select({
        userId: userSessions.userId,
        revokedAt: userSessions.revokedAt,
        lastSeenAt: userSessions.lastSeenAt,
      })
      .from(userSessions)
      .where(eq(userSessions.id, sessionId))
      .limit(1);
    // A missing row (deleted user, forged sid cannot happen: the JWT is signed) reads as ended.
    if (!row) return { userId: "", isActive: false, checkedMs: now.getTime() };
    const isActive = row.revokedAt === null;
    if (isActive && now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      // Conditional, so several processes touching at once write once.
      await db
        .update(userSessions)
        .set({ lastSeenAt: now })
        .where(
          and(
            eq(userSessions.id, sessionId),
            isNull(userSessions.revokedAt),
            lte(userSessions.lastSeenAt, new Date(now.getTime() - TOUCH_EVERY_MS)),
          ),
        );
    }
    return { userId: row.userId, isActive, checkedMs: now.getTime() };
  }
}

// One per process (kept across Next's dev reloads like the other process-wide caches).
const g = globalThis as typeof globalThis & { __sluiceSessionChecker?: SessionChecker };
export const sessionChecker = (g.__sluiceSessionChecker ??= new SessionChecker({
  ttlMs: SESSION_CHECK_TTL_MS,
}));

/**
 * Whether a browser session may still act: its row exists, is not revoked and belongs to the
 * token's user. The jwt callback (server/auth/options.ts) asks this on every request.
 */
export async function checkSession({
  ctx,
  input,
  checker = sessionChecker,
}: {
  ctx: { db: Queryable; now(): Date };
  input: { sessionId: string; userId: string };
  checker?: SessionChecker;
}): Promise<boolean> {
  return checker.check(ctx.db, input, ctx.now());
}
