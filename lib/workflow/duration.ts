/**
 * Durations for approval timeouts, delays and event waits. The string form is a sequence of
 * `<integer><unit>` parts with units in descending order, each at most once: `30s`, `10m`, `1h30m`,
 * `2d`, `1w2d`, `1500ms`. That is the shape Inngest's `step.sleep` / `waitForEvent` time strings
 * accept, so a validated string can be handed to Inngest unchanged. Plain numbers are milliseconds.
 */

export const DURATION_UNITS = ["w", "d", "h", "m", "s", "ms"] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];

const UNIT_MS: Readonly<Record<DurationUnit, number>> = {
  w: 7 * 24 * 3_600_000,
  d: 24 * 3_600_000,
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
  ms: 1,
};

/** Longest duration accepted anywhere: Inngest waits and sleeps are bounded at about a year. */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

export class DurationError extends Error {
  override readonly name = "DurationError";
}

export type DurationResult = { ok: true; ms: number } | { ok: false; error: string };

// `ms` must be tried before `m` so "500ms" is not read as 500 minutes followed by "s".
const PART = /(\d+)(ms|w|d|h|m|s)/y;

/** Parses a duration; never throws. Errors say what was wrong and show an accepted example. */
export function tryParseDuration(value: unknown): DurationResult {
  if (typeof value === "number") return parseMsNumber(value);
  if (typeof value !== "string")
    return {
      ok: false,
      error: `A duration must be a string like "10m" or a number of milliseconds, got ${typeName(value)}.`,
    };
  const text = value.trim();
  if (text === "")
    return {
      ok: false,
      error: 'A duration cannot be empty; use e.g. "30s", "10m", "1h30m" or "2d".',
    };
  if (text.length > 64) return { ok: false, error: "A duration string is at most 64 characters." };
  if (/^\d+$/.test(text))
    return {
      ok: false,
      error: `Duration "${text}" has no unit; write "${text}ms", "${text}s" or "${text}m".`,
    };
  return parseParts(text);
}

function parseParts(text: string): DurationResult {
  let total = 0;
  let lastUnitIndex = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const match = PART.exec(text);
    if (!match || match.index !== start) {
      const at = start > 0 ? ` at "${text.slice(start)}"` : "";
      return {
        ok: false,
        error: `Invalid duration "${text}"${at}; use integers with units w, d, h, m, s, ms in that order, e.g. "1h30m".`,
      };
    }
    const unit = match[2] as DurationUnit;
    const unitIndex = DURATION_UNITS.indexOf(unit);
    if (unitIndex <= lastUnitIndex) {
      return {
        ok: false,
        error: `Invalid duration "${text}": units must appear once each, largest first (w, d, h, m, s, ms), e.g. "1h30m".`,
      };
    }
    lastUnitIndex = unitIndex;
    total += Number(match[1]) * UNIT_MS[unit];
  }
  return checkRange(total, `"${text}"`);
}

function parseMsNumber(value: number): DurationResult {
  if (!Number.isInteger(value) || value < 0)
    return {
      ok: false,
      error: `A duration in milliseconds must be a non-negative integer, got ${value}.`,
    };
  return checkRange(value, `${value}ms`);
}

function checkRange(ms: number, shown: string): DurationResult {
  if (ms > MAX_DURATION_MS)
    return { ok: false, error: `Duration ${shown} is longer than the maximum of 366d.` };
  return { ok: true, ms };
}

/** Parses a duration or throws a DurationError with a readable message. */
export function parseDuration(value: string | number): number {
  const result = tryParseDuration(value);
  if (!result.ok) throw new DurationError(result.error);
  return result.ms;
}

export function isDurationString(value: unknown): value is string {
  return typeof value === "string" && !/^\s*\d+\s*$/.test(value) && tryParseDuration(value).ok;
}

/** Formats milliseconds as the shortest canonical duration string (`5400000` → `"1h30m"`, `0` → `"0s"`). */
export function formatDuration(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0)
    throw new DurationError(
      `Cannot format ${ms} as a duration: expected a non-negative integer of milliseconds.`,
    );
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const unit of DURATION_UNITS) {
    const size = UNIT_MS[unit];
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
