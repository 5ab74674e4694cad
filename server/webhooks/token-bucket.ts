import "server-only";

/**
 * Per-trigger token buckets (SPEC §7 rate limit → 429). In-process: with several app instances
 * each enforces the limit on its own share of traffic (documented in docs/triggers.md).
 */
interface Bucket {
  tokens: number;
  at: number;
}
const g = globalThis as typeof globalThis & { __sluiceWebhookBuckets?: Map<string, Bucket> };
const buckets = (g.__sluiceWebhookBuckets ??= new Map());

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export function takeToken(
  key: string,
  limit: { perMinute: number; burst: number },
  nowMs = Date.now(),
): TakeResult {
  const ratePerMs = limit.perMinute / 60_000;
  const b = buckets.get(key) ?? { tokens: limit.burst, at: nowMs };
  b.tokens = Math.min(limit.burst, b.tokens + Math.max(0, nowMs - b.at) * ratePerMs);
  b.at = nowMs;
  if (buckets.size > 50_000) buckets.clear(); // bounded memory under a flood of distinct keys
  buckets.set(key, b);
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return { ok: true };
  }
  return {
    ok: false,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerMs / 1000)),
  };
}
