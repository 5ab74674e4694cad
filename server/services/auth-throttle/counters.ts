import "server-only";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { authThrottles } from "@/db/schema";
import {
  DEFAULT_LOCK_BASE_SECONDS,
  THROTTLE_FORGET_AFTER_MS,
  THROTTLE_POLICIES,
  lockSeconds,
  type ThrottleScope,
} from "@/lib/security/auth-throttle";
import { sha256Hex } from "../../keys";

/**
 * The database counters behind the auth throttle, shared by every app instance. An attempt is
 * reserved (counted as a failure) before the secret is checked, in one conditional upsert, so
 * parallel guesses — in one process or many — can never get more checks than the budget; a
 * success gives the reservation back (resetThrottle / refundAttempt).
 */
export interface ThrottleSubject {
  scope: ThrottleScope;
  /** A normalized email, a client address…; stored only as a hash. */
  subject: string;
}

export type Reservation =
  | {
      ok: true;
      failures: number;
      /** Set when this attempt started a lock. */ lockedUntil: Date | null;
    }
  | { ok: false; retryAfterSeconds: number };

export function throttleKey({ scope, subject }: ThrottleSubject): string {
  return sha256Hex(`${scope}:${subject}`);
}

/** Locks in seconds for the 1st, 2nd… failure past the free ones, ending at the cap. */
function lockSchedule(scope: ThrottleScope, baseSeconds: number): number[] {
  const policy = THROTTLE_POLICIES[scope];
  const out: number[] = [];
  for (let n = policy.freeFailures; ; n++) {
    out.push(lockSeconds(policy, n, baseSeconds));
    if (out[out.length - 1]! >= policy.capSeconds) return out;
  }
}

/**
 * Counts one attempt against `s` unless it is locked. The streak restarts after an hour without
 * failures; the failure that reaches the free budget starts a lock, and each one after it (once
 * the lock has passed) doubles it up to the cap. Lock lengths come from lockSeconds() as an
 * array literal, so the rule lives in one place and the upsert stays one statement.
 */
export async function reserveAttempt(
  db: Queryable,
  s: ThrottleSubject,
  now: Date,
  baseSeconds = DEFAULT_LOCK_BASE_SECONDS,
): Promise<Reservation> {
  const key = throttleKey(s);
  const policy = THROTTLE_POLICIES[s.scope];
  const schedule = lockSchedule(s.scope, baseSeconds);
  const forgetBefore = new Date(now.getTime() - THROTTLE_FORGET_AFTER_MS);
  const nowSql = sql`${now.toISOString()}::timestamptz`;
  const next = sql`(case when ${authThrottles.lastFailureAt} < ${forgetBefore.toISOString()}::timestamptz then 1 else ${authThrottles.failures} + 1 end)`;
  const schedSql = sql.raw(`(array[${schedule.map((n) => Math.floor(n)).join(",")}]::int[])`);
  const firstLock = lockSeconds(policy, 1, baseSeconds);
  const rows = await db
    .insert(authThrottles)
    .values({
      key,
      scope: s.scope,
      failures: 1,
      lockedUntil: firstLock > 0 ? new Date(now.getTime() + firstLock * 1000) : null,
      lastFailureAt: now,
    })
    .onConflictDoUpdate({
      target: authThrottles.key,
      set: {
        failures: next,
        lockedUntil: sql`case when ${next} >= ${policy.freeFailures} then ${nowSql} + ${schedSql}[least(${next} - ${policy.freeFailures} + 1, ${schedule.length})] * interval '1 second' else null end`,
        lastFailureAt: now,
      },
      setWhere: sql`${authThrottles.lockedUntil} is null or ${authThrottles.lockedUntil} <= ${nowSql}`,
    })
    .returning({ failures: authThrottles.failures, lockedUntil: authThrottles.lockedUntil });
  const row = rows[0];
  if (row) return { ok: true, failures: row.failures, lockedUntil: row.lockedUntil };
  return { ok: false, retryAfterSeconds: await lockedForSeconds(db, s, now) };
}

/** Seconds until `s` may try again; 0 when it is not locked. */
export async function lockedForSeconds(
  db: Queryable,
  s: ThrottleSubject,
  now: Date,
): Promise<number> {
  const [row] = await db
    .select({ lockedUntil: authThrottles.lockedUntil })
    .from(authThrottles)
    .where(and(eq(authThrottles.key, throttleKey(s)), gt(authThrottles.lockedUntil, now)));
  // A lock that ended between the refused upsert and this read still answers "1 s".
  if (!row?.lockedUntil) return 0;
  return Math.max(1, Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000));
}

/** Gives back a reservation that turned out a success (the counter of a shared address). */
export async function refundAttempt(db: Queryable, s: ThrottleSubject): Promise<void> {
  const free = THROTTLE_POLICIES[s.scope].freeFailures;
  await db
    .update(authThrottles)
    .set({
      failures: sql`greatest(${authThrottles.failures} - 1, 0)`,
      // Below the free budget again: the lock this reservation may have started goes too.
      lockedUntil: sql`case when ${authThrottles.failures} - 1 >= ${free} then ${authThrottles.lockedUntil} else null end`,
    })
    .where(eq(authThrottles.key, throttleKey(s)));
}

/** A success clears the subject's streak (an account after its correct password). */
export async function resetThrottle(db: Queryable, s: ThrottleSubject): Promise<void> {
  await db.delete(authThrottles).where(eq(authThrottles.key, throttleKey(s)));
}

/**
 * Deletes counters that no longer throttle anything: no failure within the forget window (which
 * is longer than the longest lock). Run by the daily retention job.
 */
export async function pruneAuthThrottles(db: Queryable, now: Date): Promise<number> {
  const rows = await db
    .delete(authThrottles)
    .where(lt(authThrottles.lastFailureAt, new Date(now.getTime() - THROTTLE_FORGET_AFTER_MS)))
    .returning({ key: authThrottles.key });
  return rows.length;
}
