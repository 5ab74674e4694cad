/**
 * Which IANA zone a schedule trigger fires in (SPEC §7: the zone is definition-level). A trigger's
 * own `config.timezone` is an explicit override; without one it inherits the `timezone` of its
 * workflow's current published version, so publishing a new zone moves every inheriting schedule.
 * No published version (or a definition without a zone) = UTC, the definition schema's default.
 * Pure and free of croner, so the triggers UI can use it too.
 */

export const DEFAULT_SCHEDULE_TIMEZONE = "UTC";

export interface ScheduleZone {
  /** The zone the schedule fires in. */
  timezone: string;
  /** `trigger`: the trigger's own override; `workflow`: inherited from the definition. */
  source: "trigger" | "workflow";
  /** The workflow's zone (what an inheriting schedule would use), for "overrides …" notes. */
  workflowTimezone: string;
}

export function scheduleZone(
  triggerTimezone: string | null | undefined,
  workflowTimezone: string | null | undefined,
): ScheduleZone {
  const workflow = workflowTimezone?.trim() || DEFAULT_SCHEDULE_TIMEZONE;
  const own = triggerTimezone?.trim();
  return own
    ? { timezone: own, source: "trigger", workflowTimezone: workflow }
    : { timezone: workflow, source: "workflow", workflowTimezone: workflow };
}

/** "Europe/Berlin (overrides the workflow's UTC)" / "UTC (the workflow's zone)". */
export function describeScheduleZone(z: ScheduleZone): string {
  if (z.source === "workflow") return `${z.timezone} (the workflow's zone)`;
  return z.timezone === z.workflowTimezone
    ? `${z.timezone} (set on the trigger; the workflow's zone is the same)`
    : `${z.timezone} (overrides the workflow's ${z.workflowTimezone})`;
}
