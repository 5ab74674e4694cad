/**
 * Time strings as the SDK sends them: `Sleep` ops carry `"1h30m"`-style durations (w/d/h/m/s) or
 * an ISO date in `name`; wait/invoke/cancel timeouts use the same forms.
 */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_536_000_000,
};

/** Longest sleep or wait the executor schedules (Inngest caps sleeps at one year). */
export const MAX_WAIT_MS = UNIT_MS.y!;

/** Milliseconds of a duration string, or undefined when it is not one. `""` is zero. */
export function parseSdkDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "") return 0;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s); // bare number = ms
  const re = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)/gy;
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(s))) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    consumed = re.lastIndex;
  }
  return consumed === s.length && consumed > 0 ? total : undefined;
}

/**
 * The instant a sleep or timeout ends: an ISO date, or `now` + a duration. Clamped to one year.
 * Undefined when the text is neither.
 */
export function resolveUntil(text: string, now: number): number | undefined {
  const duration = parseSdkDuration(text);
  let at: number;
  if (duration !== undefined) at = now + duration;
  else {
    if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
    at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
  }
  return Math.min(at, now + MAX_WAIT_MS);
}
