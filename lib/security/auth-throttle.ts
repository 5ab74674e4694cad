/**
 * The authentication throttle policy (issue #17): how many failures are free, how long each lock
 * after them lasts, and how a refusal is told to the browser. Pure; the counters live in the
 * database (server/services/auth-throttle).
 */

/** What a counter counts failures of. */
export const THROTTLE_SCOPES = ["account", "address", "invitation", "api_token"] as const;
export type ThrottleScope = (typeof THROTTLE_SCOPES)[number];

export interface ThrottlePolicy {
  /** Failures allowed before the first lock. */
  freeFailures: number;
  /** Longest lock, however many failures follow. */
  capSeconds: number;
}

/**
 * An account (normalized email, known or not) gets 5 free failures. A client address is shared
 * by everyone behind one NAT, so it gets more; it still stops one machine spraying many accounts.
 * Invitation links and API tokens are 128+ bit secrets: their throttle only slows scanners down.
 */
export const THROTTLE_POLICIES: Record<ThrottleScope, ThrottlePolicy> = {
  account: { freeFailures: 5, capSeconds: 15 * 60 },
  address: { freeFailures: 20, capSeconds: 15 * 60 },
  invitation: { freeFailures: 10, capSeconds: 15 * 60 },
  api_token: { freeFailures: 20, capSeconds: 15 * 60 },
};

/** The first lock lasts this long unless configured (SLUICE_AUTH_LOCK_BASE_SECONDS). */
export const DEFAULT_LOCK_BASE_SECONDS = 15;

/** A counter without failures for this long starts again from zero (and may be pruned). */
export const THROTTLE_FORGET_AFTER_MS = 60 * 60 * 1000;

/**
 * Seconds locked after the `failures`-th failure: none while free, then base, 2×base, 4×base…
 * up to the cap. `failures` counts every failure of the current streak.
 */
export function lockSeconds(policy: ThrottlePolicy, failures: number, baseSeconds: number): number {
  const over = failures - policy.freeFailures;
  if (over < 0) return 0;
  // 2^over overflows to Infinity long after the cap; min() keeps the result finite.
  return Math.min(policy.capSeconds, baseSeconds * 2 ** Math.min(over, 30));
}

/**
 * next-auth passes an error thrown by `authorize` to the client as its message, so a throttled
 * sign-in travels as `too_many_attempts:<seconds>` (the route turns it into 429 + Retry-After).
 */
const THROTTLE_ERROR = /^too_many_attempts:(\d+)$/;

export function throttleErrorCode(retryAfterSeconds: number): string {
  return `too_many_attempts:${Math.max(1, Math.ceil(retryAfterSeconds))}`;
}

/** The seconds a throttle error code carries, or null for any other error. */
export function parseThrottleErrorCode(code: string | null | undefined): number | null {
  const m = code ? THROTTLE_ERROR.exec(code) : null;
  return m ? Number(m[1]) : null;
}

/** The message people read when refused. */
export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  return `Too many attempts — try again in ${Math.max(1, Math.ceil(retryAfterSeconds))} s.`;
}
