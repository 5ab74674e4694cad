import "server-only";
import { LRUCache } from "lru-cache";

/**
 * Per-trigger token buckets (SPEC §7 rate limit → 429). In-process: with several app instances
 * each enforces the limit on its own share of traffic (documented in docs/triggers.md).
 */
interface Bucket {
  tokens: number;
  at: number;
}
// Bounded memory under a flood of distinct keys: the least recently used bucket goes first (a
// full bucket is what a forgotten key starts with again, so only idle triggers lose state).
const g = globalThis as typeof globalThis & {
  __sluiceWebhookBuckets?: LRUCache<string, Bucket>;
};
const buckets = (g.__sluiceWebhookBuckets ??= new LRUCache<string, Bucket>({ max: 50_000 }));

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
