import "server-only";
import { DEFAULT_LOCK_BASE_SECONDS, tooManyAttemptsMessage } from "@/lib/security/auth-throttle";
import { NotFoundError, TooManyAttemptsError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import type { ServiceContext } from "../context";
import {
  lockedForSeconds,
  reserveAttempt,
  type Reservation,
  type ThrottleSubject,
} from "./counters";

/**
 * The per-address throttle subject of a request, or null when there is no address to key on.
 * Behind Next's server every request has one (it fills X-Forwarded-For); only in-process callers
 * (tests, scripts) have none. Lumping those under one key would make them throttle each other,
 * and skipping them gives an attacker nothing a forged X-Forwarded-For without a proxy would not.
 */
export function addressSubject(
  ctx: ServiceContext,
  scope: "address" | "invitation" | "api_token",
): ThrottleSubject | null {
  const address = ctx.client?.address;
  return address ? { scope, subject: address } : null;
}

export function lockBaseSeconds(ctx: ServiceContext): number {
  return ctx.config.authLockBaseSeconds ?? DEFAULT_LOCK_BASE_SECONDS;
}

export function tooManyAttempts(retryAfterSeconds: number): TooManyAttemptsError {
  return new TooManyAttemptsError(tooManyAttemptsMessage(retryAfterSeconds), retryAfterSeconds);
}

/** TooManyAttemptsError (429 + Retry-After) while `s` is locked. */
export async function refuseIfLocked(ctx: ServiceContext, s: ThrottleSubject): Promise<void> {
  const seconds = await lockedForSeconds(ctx.db, s, ctx.now());
  if (seconds > 0) throw tooManyAttempts(seconds);
}

/**
 * Reserves one attempt against `s` (TooManyAttemptsError while locked). Refused attempts are not
 * audited one by one; the attempt that starts a lock is (lockout, below).
 */
export async function reserveOrRefuse(
  ctx: ServiceContext,
  s: ThrottleSubject,
): Promise<Extract<Reservation, { ok: true }>> {
  const r = await reserveAttempt(ctx.db, s, ctx.now(), lockBaseSeconds(ctx));
  if (!r.ok) throw tooManyAttempts(r.retryAfterSeconds);
  return r;
}

/**
 * Counts a failed invitation or API-token attempt from the request's address, auditing the one
 * that starts a lock. Invitations are checked first and counted after (refuseIfLocked, then
 * this): the secrets are random 128+ bit values, so the throttle only slows scanners. The row has
 * no workspace: the secret matched none.
 */
export async function countFailure(ctx: ServiceContext, s: ThrottleSubject): Promise<void> {
  await recordFailure(ctx, s);
}

/**
 * Like countFailure, but refuses (TooManyAttemptsError) when `s` is already locked. For API
 * tokens, which are looked up first: only a lookup that failed spends the address's budget, so a
 * valid token is never refused for someone else's guesses from the same address (issue #25).
 */
export async function countFailureOrRefuse(ctx: ServiceContext, s: ThrottleSubject): Promise<void> {
  const r = await recordFailure(ctx, s);
  if (!r.ok) throw tooManyAttempts(r.retryAfterSeconds);
}

async function recordFailure(ctx: ServiceContext, s: ThrottleSubject): Promise<Reservation> {
  const r = await reserveAttempt(ctx.db, s, ctx.now(), lockBaseSeconds(ctx));
  if (r.ok && r.lockedUntil) {
    await recordAudit(ctx.db, ctx, {
      workspaceId: null,
      action: "auth.lockout",
      data: { scope: s.scope, failures: r.failures, lockedUntil: r.lockedUntil.toISOString() },
    });
  }
  return r;
}

/**
 * Runs an invitation-token lookup (show, accept, sign up with the link) behind the throttle of
 * the request's address: refused while locked, and a token that matches no invitation
 * (NotFoundError) counts as a failure — counted outside the caller's transaction, which rolls back.
 */
export async function withInvitationThrottle<T>(
  ctx: ServiceContext,
  fn: () => Promise<T>,
): Promise<T> {
  const subject = addressSubject(ctx, "invitation");
  if (!subject) return fn();
  await refuseIfLocked(ctx, subject);
  try {
    return await fn();
  } catch (e) {
    // claimInvitation and getInvitation say NotFoundError("Invitation") for an unknown link.
    if (e instanceof NotFoundError && e.message.startsWith("Invitation "))
      await countFailure(ctx, subject);
    throw e;
  }
}
