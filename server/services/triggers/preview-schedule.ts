import "server-only";
import { PreviewScheduleInput } from "@/lib/schemas/triggers";
import {
  checkMinInterval,
  compileSchedule,
  DEFAULT_MIN_INTERVAL_SECONDS,
  fireTimesOf,
  ScheduleError,
} from "@/lib/triggers/cron";
import { fromZodError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

/**
 * The next fire times of a cron expression in a zone, with DST gaps and repeats flagged and the
 * minimum-interval verdict — exactly what the scheduler would do (same compiled schedule).
 */
export async function previewSchedule({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  requireRole(ctx, "viewer");
  const parsed = PreviewScheduleInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { cron, timezone, count, from } = parsed.data;
  let schedule;
  try {
    schedule = compileSchedule(cron, timezone);
  } catch (e) {
    if (e instanceof ScheduleError)
      throw new ValidationError(e.message, [{ path: [e.field], message: e.message }]);
    throw e;
  }
  const now = ctx.now();
  const start = from ? new Date(from) : now;
  const times = fireTimesOf(schedule, start, count);
  return {
    cron: schedule.cron,
    timezone: schedule.timezone,
    /** Fixed-time: DST gap times shift to the jump, repeated times fire once; otherwise skipped / twice. */
    dstBehaviour: schedule.isFixedTime ? ("fixed-time" as const) : ("interval" as const),
    from: start.toISOString(),
    times,
    /** Pass as `from` for the next page (past 50 occurrences, e.g. a DST change months ahead). */
    nextFrom: times.length === count ? times[times.length - 1]!.at : null,
    minInterval: checkMinInterval(
      schedule,
      ctx.config.scheduleMinIntervalSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS,
      now,
    ),
  };
}
