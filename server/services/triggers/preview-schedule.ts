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
  const { cron, timezone, count } = parsed.data;
  let schedule;
  try {
    schedule = compileSchedule(cron, timezone);
  } catch (e) {
    if (e instanceof ScheduleError)
      throw new ValidationError(e.message, [{ path: [e.field], message: e.message }]);
    throw e;
  }
  const now = ctx.now();
  return {
    cron: schedule.cron,
    timezone: schedule.timezone,
    /** Fixed-time: DST gap times shift to the jump, repeated times fire once; otherwise skipped / twice. */
    dstBehaviour: schedule.isFixedTime ? ("fixed-time" as const) : ("interval" as const),
    times: fireTimesOf(schedule, now, count),
    minInterval: checkMinInterval(
      schedule,
      ctx.config.scheduleMinIntervalSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS,
      now,
    ),
  };
}
