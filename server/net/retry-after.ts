import "server-only";

/** Longest wait a server can ask for; beyond it the engine's own backoff applies. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Parses a Retry-After header: delay-seconds or an HTTP date (RFC 9110 §10.2.3). Returns the
 * wait in ms (clamped to [0, MAX_RETRY_AFTER_MS]) or undefined when absent or unparsable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // HTTP dates start with a day name; Date.parse alone would also accept "-5" (year -5).
    if (!/^[A-Za-z]{3}/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
