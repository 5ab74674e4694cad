/**
 * Schedule planning (SPEC §7): pure functions over a 5-field cron expression and an IANA zone, on
 * croner. The scheduler (server/services/triggers/evaluate-schedules.ts) and the preview use the
 * same `compileSchedule`, so what the preview shows is what fires.
 *
 * DST, as croner 11 implements it (fixedTimeRule "no-wildcard", close to Vixie cron):
 * - Fixed-time schedules — minute and hour without `*` or a step (`30 2 * * *`, `0 9,17 * * *`):
 *   a wall time in the spring-forward gap is SHIFTED to the instant the clock jumps (Berlin,
 *   02:30 on the last Sunday of March fires at 03:00 CEST); a wall time that occurs twice in the
 *   autumn fires ONCE, at its first occurrence.
 * - Interval schedules — `*` or a step in minute or hour (`*\/15 * * * *`, `30 * * * *`): wall
 *   times in the gap are SKIPPED; a repeated wall time fires TWICE (two distinct instants, two
 *   ticks, two runs).
 * Ticks are instants (UTC), so the scheduler's (trigger, tick) claim follows the same rule.
 */
import { Cron } from "croner";
import { LRUCache } from "lru-cache";

export const DEFAULT_MIN_INTERVAL_SECONDS = 60;
/** How many upcoming fire times the minimum-interval check looks at. */
export const MIN_INTERVAL_SAMPLE = 200;

export type ScheduleErrorField = "cron" | "timezone";

/** A schedule that cannot be used, with the field at fault and a message naming the culprit. */
export class ScheduleError extends Error {
  constructor(
    readonly field: ScheduleErrorField,
    message: string,
  ) {
    super(message);
    this.name = "ScheduleError";
  }
}

export interface CompiledSchedule {
  cron: string;
  timezone: string;
  /** True when DST gaps shift and repeats fire once (see the file comment). */
  isFixedTime: boolean;
  job: Cron;
  /** The same pattern read in UTC: matches wall-clock times (a wall time as if it were UTC). */
  wall: Cron;
}

const FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"];

/** The canonical IANA name of `timezone`; throws ScheduleError unless this runtime knows it. */
export function assertTimezone(timezone: string): string {
  const tz = timezone.trim();
  // Offsets ("+02:00") are accepted by Intl but have no DST rules and are not IANA names.
  if (!/^(UTC|GMT|[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+)$/.test(tz)) {
    throw new ScheduleError(
      "timezone",
      `"${timezone}" is not an IANA time zone (use a name such as Europe/Berlin or UTC)`,
    );
  }
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new ScheduleError(
      "timezone",
      `Unknown time zone "${timezone}" (use an IANA name such as Europe/Berlin or America/New_York)`,
    );
  }
}

// The scheduler compiles every schedule every minute; parsed patterns are immutable, so keep them.
const compiled = new LRUCache<string, CompiledSchedule>({ max: 5_000 });

/** Parses and checks a 5-field expression in a zone; throws ScheduleError with a clear message. */
export function compileSchedule(cron: string, timezone = "UTC"): CompiledSchedule {
  const key = `${timezone}\u0000${cron}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const schedule = compileUncached(cron, timezone);
  compiled.set(key, schedule);
  return schedule;
}

function compileUncached(cron: string, timezone: string): CompiledSchedule {
  const zone = assertTimezone(timezone);
  const expr = cron.trim().replace(/\s+/g, " ");
  if (!expr) throw new ScheduleError("cron", "The cron expression is empty");
  if (expr.startsWith("@")) {
    throw new ScheduleError(
      "cron",
      `"${expr}" is a nickname; write the 5 fields instead (e.g. "0 * * * *" for @hourly, "0 0 * * *" for @daily)`,
    );
  }
  const parts = expr.split(" ");
  if (parts.length === 6 || parts.length === 7) {
    throw new ScheduleError(
      "cron",
      `"${expr}" has ${parts.length} fields; schedules use exactly 5 (${FIELD_NAMES.join(" ")}) — seconds${parts.length === 7 ? " and years" : ""} are not supported`,
    );
  }
  if (parts.length !== 5) {
    throw new ScheduleError(
      "cron",
      `"${expr}" has ${parts.length} field${parts.length === 1 ? "" : "s"}; schedules use exactly 5 (${FIELD_NAMES.join(" ")})`,
    );
  }
  const options = { paused: true, mode: "5-part", fixedTimeRule: "no-wildcard" } as const;
  let job: Cron;
  let wall: Cron;
  try {
    job = new Cron(expr, { ...options, timezone: zone });
    wall = new Cron(expr, { ...options, timezone: "UTC" });
  } catch (e) {
    const message = (e as Error).message.replace(/^CronPattern:\s*/, "");
    throw new ScheduleError("cron", `Invalid cron expression "${expr}": ${message}`);
  }
  // A pattern like `0 0 30 2 *` parses but never matches a date.
  if (!wall.nextRun(new Date(Date.UTC(2000, 0, 1)))) {
    throw new ScheduleError("cron", `"${expr}" never fires (no date matches all of its fields)`);
  }
  const [minute, hour] = parts as [string, string];
  const wild = (f: string) => f.includes("*") || f.includes("?") || f.includes("/");
  return { cron: expr, timezone: zone, isFixedTime: !wild(minute) && !wild(hour), job, wall };
}

/** The UTC offset of `timezone` at `at`, in minutes (east positive). */
export function offsetMinutes(timezone: string, at: number): number {
  const parts = offsetFormatter(timezone).formatToParts(new Date(at));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour") % 24,
    get("minute"),
    get("second"),
  );
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60_000);
}

const formatters = new LRUCache<string, Intl.DateTimeFormat>({ max: 1_000 });
function offsetFormatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** `2026-03-29 03:00` — the wall-clock time of an instant in a zone. */
export function wallTime(timezone: string, at: number): string {
  return new Date(at + offsetMinutes(timezone, at) * 60_000)
    .toISOString()
    .slice(0, 16)
    .replace("T", " ");
}

export interface DstGap {
  /** Wall times the pattern matches that did not exist (the clock jumped over them). */
  wallTimes: string[];
  /** Fixed-time schedules fire at the jump instead (shifted); interval schedules skip them. */
  handling: "shifted" | "skipped";
}

export interface DstRepeat {
  /** Which of the two instants with this wall time this fire time is. */
  occurrence: "first" | "second";
  /** Interval schedules fire on both occurrences; fixed-time schedules on the first only. */
  firesTwice: boolean;
}

export interface FireTime {
  /** ISO instant (UTC). */
  at: string;
  /** Wall-clock time in the schedule's zone, `YYYY-MM-DD HH:mm`. */
  local: string;
  /** UTC offset at that instant, in minutes. */
  offsetMinutes: number;
  dstGap?: DstGap;
  dstRepeat?: DstRepeat;
}

/** The next `count` fire times strictly after `from`, with DST gap/repeat flags. */
export function nextFireTimes(cron: string, tz: string, from: Date, count: number): FireTime[] {
  return fireTimesOf(compileSchedule(cron, tz), from, count);
}

/** `nextFireTimes` for an already compiled schedule. */
export function fireTimesOf(s: CompiledSchedule, from: Date, count: number): FireTime[] {
  const out: FireTime[] = [];
  let prev = from.getTime();
  for (let i = 0; i < count; i++) {
    const next = s.job.nextRun(new Date(prev));
    if (!next) break;
    const at = next.getTime();
    out.push(describeFire(s, prev, at));
    prev = at;
  }
  return out;
}

function describeFire(s: CompiledSchedule, prev: number, at: number): FireTime {
  const tz = s.timezone;
  const offset = offsetMinutes(tz, at);
  const fire: FireTime = {
    at: new Date(at).toISOString(),
    local: wallTime(tz, at),
    offsetMinutes: offset,
  };
  const gap = gapBetween(s, prev, at);
  if (gap) fire.dstGap = gap;
  const repeat = repeatAt(s, at);
  if (repeat) fire.dstRepeat = repeat;
  return fire;
}

/** A spring-forward transition in (prev, at] whose skipped wall times the pattern matches. */
function gapBetween(s: CompiledSchedule, prev: number, at: number): DstGap | undefined {
  const tz = s.timezone;
  const before = offsetMinutes(tz, prev);
  const after = offsetMinutes(tz, at);
  if (after <= before) return undefined;
  // Find the transition instant T (first instant with the later offset), minute precision.
  let lo = prev;
  let hi = at;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (mid <= lo) break;
    if (offsetMinutes(tz, mid) > before) hi = mid;
    else lo = mid;
  }
  const jump = hi;
  // The skipped wall range is [T + before, T + after), read as UTC in the wall-clock cron.
  const gapStart = jump + before * 60_000;
  const gapEnd = jump + after * 60_000;
  const wallTimes: string[] = [];
  let t = s.wall.nextRun(new Date(gapStart - 1000));
  while (t && t.getTime() < gapEnd && wallTimes.length < 120) {
    wallTimes.push(t.toISOString().slice(0, 16).replace("T", " "));
    t = s.wall.nextRun(t);
  }
  if (!wallTimes.length) return undefined;
  // Croner moves a fixed-time fire in the gap to the jump itself, a wall time the pattern lacks.
  const wallAt = at + after * 60_000;
  const shifted = at === jump && s.wall.nextRun(new Date(wallAt - 1000))?.getTime() !== wallAt;
  return { wallTimes, handling: shifted ? "shifted" : "skipped" };
}

/** Whether the wall time of `at` occurs twice that day (fall back), and which occurrence it is. */
function repeatAt(s: CompiledSchedule, at: number): DstRepeat | undefined {
  const tz = s.timezone;
  const oA = offsetMinutes(tz, at - 6 * 3_600_000);
  const oB = offsetMinutes(tz, at + 6 * 3_600_000);
  if (oA <= oB) return undefined; // no fall-back transition nearby
  const wall = at + offsetMinutes(tz, at) * 60_000;
  const first = wall - oA * 60_000;
  const second = wall - oB * 60_000;
  const valid = (c: number, o: number) => offsetMinutes(tz, c) === o;
  if (!valid(first, oA) || !valid(second, oB)) return undefined;
  const occurrence = at === first ? "first" : "second";
  const other = occurrence === "first" ? second : first;
  const firesAtOther = s.job.nextRun(new Date(other - 1000))?.getTime() === other;
  return { occurrence, firesTwice: firesAtOther };
}

export interface MinIntervalVerdict {
  ok: boolean;
  minimumSeconds: number;
  /** The shortest gap between consecutive fire times among the sampled ones (null: < 2 fires). */
  shortestGapSeconds: number | null;
  /** Where the shortest gap starts (ISO), to show the user. */
  shortestGapAt: string | null;
  message?: string;
}

/**
 * Rejects schedules that fire more often than `minimumSeconds`, judged by the gaps between the
 * next `sample` fire times from `from` (cron fields repeat, so the pattern's densest stretch
 * shows up early; DST can shorten one night's gap, which the sample may not reach).
 */
export function checkMinInterval(
  schedule: CompiledSchedule,
  minimumSeconds: number,
  from: Date,
  sample = MIN_INTERVAL_SAMPLE,
): MinIntervalVerdict {
  const times = schedule.job.nextRuns(sample, from).map((d) => d.getTime());
  let shortest: number | null = null;
  let shortestAt: number | null = null;
  for (let i = 1; i < times.length; i++) {
    const gap = (times[i]! - times[i - 1]!) / 1000;
    if (shortest === null || gap < shortest) {
      shortest = gap;
      shortestAt = times[i - 1]!;
    }
  }
  const ok = shortest === null || shortest >= minimumSeconds;
  return {
    ok,
    minimumSeconds,
    shortestGapSeconds: shortest,
    shortestGapAt: shortestAt === null ? null : new Date(shortestAt).toISOString(),
    ...(ok
      ? {}
      : {
          message: `"${schedule.cron}" fires every ${shortest} s at its most frequent; the minimum interval is ${minimumSeconds} s`,
        }),
  };
}

export interface ScheduleIssue {
  path: ["config", ScheduleErrorField];
  message: string;
}

/**
 * Everything wrong with a schedule's cron and zone, as issues naming `config.cron` /
 * `config.timezone` — for the trigger create/update services to reject a write with.
 */
export function scheduleIssues(
  cron: string,
  timezone: string,
  minIntervalSeconds: number,
  now: Date,
): ScheduleIssue[] {
  try {
    const schedule = compileSchedule(cron, timezone);
    const verdict = checkMinInterval(schedule, minIntervalSeconds, now);
    return verdict.ok ? [] : [{ path: ["config", "cron"], message: verdict.message! }];
  } catch (e) {
    if (e instanceof ScheduleError) return [{ path: ["config", e.field], message: e.message }];
    throw e;
  }
}
