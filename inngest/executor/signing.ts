/**
 * Request signing as the SDK verifies it (cloud mode): `x-inngest-signature: t=<unix s>&s=<hex>`
 * where s = HMAC-SHA256(key text without its `signkey-<env>-` prefix, body + t). Requests are
 * signed over their JCS bytes; responses over their raw body text. The SDK authenticates to the
 * executor with `Authorization: Bearer signkey-<env>-<hex(sha256(hex-decoded key))>`.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../lib/server-only/safe-equal";
import { hashedSigningKey } from "../../lib/server-only/signing-key";

const PREFIX = /^signkey-[\w]+-/;
/** Signatures older (or further in the future) than this are refused, as the SDK does. */
const MAX_SKEW_MS = 5 * 60_000;

function stripKeyPrefix(key: string): string {
  return key.replace(PREFIX, "");
}

export function hmacHex(key: string, data: string): string {
  return createHmac("sha256", stripKeyPrefix(key)).update(data).digest("hex");
}

export function signatureHeader(key: string, body: string, nowMs = Date.now()): string {
  const t = Math.round(nowMs / 1000).toString();
  return `t=${t}&s=${hmacHex(key, body + t)}`;
}

/** Checks a signature header over `body` with any of `keys`. */
export function verifySdkSignature(
  header: string | null | undefined,
  body: string,
  keys: readonly string[],
  nowMs = Date.now(),
): { ok: true } | { ok: false; reason: string } {
  if (!header) return { ok: false, reason: "missing x-inngest-signature" };
  const params = new URLSearchParams(header);
  const t = params.get("t");
  const s = params.get("s");
  if (!t || !s) return { ok: false, reason: "malformed x-inngest-signature" };
  const ts = Number(t);
  if (!Number.isFinite(ts) || Math.abs(nowMs - ts * 1000) > MAX_SKEW_MS) {
    return { ok: false, reason: "signature timestamp outside the 5 minute window" };
  }
  for (const key of keys) {
    if (safeEqual(hmacHex(key, body + t), s)) return { ok: true };
  }
  return { ok: false, reason: "signature does not match the signing key" };
}

/**
 * Authorization for the executor's own endpoints: `Bearer <hashed key>` (what the SDK sends to
 * `/fn/register`) or `Bearer <raw key>` (operators and tests), compared in constant time.
 */
export function checkBearer(header: string | null | undefined, keys: readonly string[]): boolean {
  const token = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (!token) return false;
  let ok = false;
  for (const key of keys) {
    // No early exit: every candidate is compared so timing does not reveal which one matched.
    if (safeEqual(token, key)) ok = true;
    if (safeEqual(token, hashedSigningKey(key))) ok = true;
  }
  return ok;
}
