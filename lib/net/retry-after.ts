/** Longest wait a server can ask an app-side HTTP client for; beyond it the caller's backoff applies. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Parses a Retry-After value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), or the ISO 8601
 * instant the Inngest SDK sends for `RetryAfterError(message, date)`. Returns the wait in ms from
 * `now`, clamped to [0, maxMs], or undefined when absent or invalid. delay-seconds is a
 * non-negative integer, so "-5" is invalid (undefined), not "retry now".
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
  maxMs = MAX_RETRY_AFTER_MS,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // Only the two date forms: Date.parse alone also accepts "-5" (the year -5) and "1".
    if (!/^[A-Za-z]{3}/.test(text) && !/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), maxMs);
}
