/** Which schedule ticks a scheduler pass fires, and which it records as missed (the misfire policy). */
import { compileSchedule } from "./cron";

export type MisfirePolicy = "skip" | "latest";

export interface PlanTicksArgs {
  cron: string;
  tz: string;
  /** The last instant already planned; null = start from now (only the current minute's tick). */
  cursor: Date | null;
  now: Date;
  misfire: MisfirePolicy;
  catchUpWindowMinutes: number;
}

export interface PlannedTick {
  /** The tick instant, ISO. */
  tick: string;
}

export interface MissedTick extends PlannedTick {
  reason: string;
}

export interface TickPlan {
  /** Ticks to fire now (at most one). */
  due: PlannedTick[];
  /** Ticks not fired, with the reason; at most MAX_RECORDED_MISSED, newest kept. */
  missed: MissedTick[];
  /** Missed ticks not listed because there were more than MAX_RECORDED_MISSED. */
  omittedMissed: number;
  /** Set when the cursor lay beyond the planning horizon: earlier ticks were not enumerated. */
  horizonStart?: string;
  /** The cursor after this plan: everything up to it has been planned. */
  cursor: string;
}

export const MISSED_REASON_SKIP = "downtime: misfire policy skip";

export const MISSED_REASON_LATEST =
  "downtime: misfire policy latest (only the most recent missed tick runs)";

export const MISSED_REASON_WINDOW = "outside the catch-up window";

export const MAX_RECORDED_MISSED = 100;

/** Ticks older than this (beyond the longest catch-up window) are never enumerated one by one. */
export const PLANNING_HORIZON_MS = 8 * 24 * 3_600_000;

/**
 * Which ticks in (cursor, now] fire and which are missed.
 *
 *   cursor ────┬──────┬──────┬──────┬── now
 *              t1     t2     t3     t4 (this minute)
 *   skip:      missed missed missed FIRE
 *   latest:    missed missed missed FIRE       (t4 is the most recent)
 *   latest, no t4: t3 fires if within the catch-up window, else it is missed too
 *
 * `skip` fires only a tick in the current minute (the minute of `now`); `latest` fires the most
 * recent due tick if it lies within the catch-up window. Everything else is missed.
 */
export function planTicks(args: PlanTicksArgs): TickPlan {
  const s = compileSchedule(args.cron, args.tz);
  const now = args.now.getTime();
  const minuteStart = now - (now % 60_000);
  const cursor = args.cursor ? args.cursor.getTime() : minuteStart - 1;
  // A cursor older than the horizon (a long outage, a trigger re-enabled after weeks): ticks before
  // the horizon are neither fired nor listed — no catch-up window reaches that far.
  const from = Math.max(cursor, now - PLANNING_HORIZON_MS);
  const ticks: number[] = [];
  let t = s.job.nextRun(new Date(from));
  while (t && t.getTime() <= now) {
    ticks.push(t.getTime());
    t = s.job.nextRun(t);
  }
  const windowStart = now - args.catchUpWindowMinutes * 60_000;
  const due: PlannedTick[] = [];
  const missed: MissedTick[] = [];
  const latest = ticks.length ? ticks[ticks.length - 1]! : undefined;
  for (const tick of ticks) {
    const iso = new Date(tick).toISOString();
    if (tick === latest && tick >= minuteStart) due.push({ tick: iso });
    else if (args.misfire === "skip") missed.push({ tick: iso, reason: MISSED_REASON_SKIP });
    else if (tick === latest && tick >= windowStart) due.push({ tick: iso });
    else if (tick < windowStart) missed.push({ tick: iso, reason: MISSED_REASON_WINDOW });
    else missed.push({ tick: iso, reason: MISSED_REASON_LATEST });
  }
  let omitted = 0;
  if (missed.length > MAX_RECORDED_MISSED) {
    omitted = missed.length - MAX_RECORDED_MISSED;
    missed.splice(0, omitted);
  }
  return {
    due,
    missed,
    omittedMissed: omitted,
    ...(from > cursor ? { horizonStart: new Date(from).toISOString() } : {}),
    cursor: new Date(Math.max(now, args.cursor?.getTime() ?? 0)).toISOString(),
  };
}
