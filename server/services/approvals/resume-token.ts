import "server-only";
import { createHmac } from "node:crypto";
import type { Keys } from "../../keys";
import { safeEqual } from "@/lib/server-only/safe-equal";

export const RESUME_TOKEN_PREFIX = "wrf_rt_";

export interface ResumeTokenClaims {
  approvalId: string;
  runId: string;
  stepPath: string;
  attempt: number;
  hash: string;
  expiresAt: Date;
}

function mac(keys: Keys, c: ResumeTokenClaims): string {
  const payload = [
    c.approvalId,
    c.runId,
    c.stepPath,
    String(c.attempt),
    c.hash,
    String(Math.floor(c.expiresAt.getTime() / 1000)),
  ].join("\n");
  return createHmac("sha256", keys.derive("resume-token")).update(payload).digest("base64url");
}

/**
 * `wrf_rt_<approvalId>.<expiry>.<hmac>`: an HMAC over (approval, run, step, attempt, definition
 * hash, expiry) with a derived server key. The approval id and expiry are readable so a token
 * can be routed and rejected early; everything else must match the stored approval.
 */
export function signResumeToken(keys: Keys, claims: ResumeTokenClaims): string {
  return `${RESUME_TOKEN_PREFIX}${claims.approvalId}.${Math.floor(claims.expiresAt.getTime() / 1000)}.${mac(keys, claims)}`;
}

export function parseResumeToken(
  token: string,
): { approvalId: string; expiresAtSec: number } | null {
  if (!token.startsWith(RESUME_TOKEN_PREFIX) || token.length > 300) return null;
  const [approvalId, exp, sig] = token.slice(RESUME_TOKEN_PREFIX.length).split(".");
  if (!approvalId || !exp || !sig || !/^\d+$/.test(exp)) return null;
  return { approvalId, expiresAtSec: Number(exp) };
}

/** Constant-time check of a token against the approval it claims to be for. */
export function verifyResumeToken(keys: Keys, token: string, claims: ResumeTokenClaims): boolean {
  return safeEqual(token, signResumeToken(keys, claims));
}
