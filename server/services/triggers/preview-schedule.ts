import "server-only";
import { PreviewScheduleInput } from "@/lib/schemas/triggers";
import {
  checkMinInterval,
  compileSchedule,
  DEFAULT_MIN_INTERVAL_SECONDS,
  fireTimesOf,
  ScheduleError,
} from "@/lib/triggers/cron";
import { scheduleZone } from "@/lib/triggers/schedule-zone";
import { fromZodError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { workflowTimezones } from "./workflow-timezone";

/**
 * The next fire times of a cron expression in a zone, with DST gaps and repeats flagged and the
 * minimum-interval verdict — exactly what the scheduler would do (same compiled schedule). Without
 * a `timezone` the zone is the one a schedule of `workflowId` inherits (UTC without a workflow).
 */
export async function previewSchedule({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = PreviewScheduleInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { cron, count, from, workflowId } = parsed.data;
  let workflowTimezone: string | null = null;
  if (workflowId) {
    await loadWorkflow(ctx.db, ws.id, workflowId);
    workflowTimezone =
      (await workflowTimezones(ctx.db, ws.id, [workflowId])).get(workflowId) ?? null;
  }
  const zone = scheduleZone(parsed.data.timezone, workflowTimezone);
  let schedule;
  try {
    schedule = compileSchedule(cron, zone.timezone);
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
    /** `trigger`: the zone given; `workflow`: the workflow's (inherited), see scheduleZone. */
    timezoneSource: zone.source,
    workflowTimezone: zone.workflowTimezone,
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
