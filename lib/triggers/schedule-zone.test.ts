import { describe, expect, it } from "vitest";
import { describeScheduleZone, scheduleZone } from "./schedule-zone";

describe("scheduleZone", () => {
  it("inherits the workflow's zone when the trigger sets none", () => {
    expect(scheduleZone(undefined, "Europe/Berlin")).toEqual({
      timezone: "Europe/Berlin",
      source: "workflow",
      workflowTimezone: "Europe/Berlin",
    });
    expect(scheduleZone("  ", "Asia/Tokyo").source).toBe("workflow");
  });

  it("a trigger's own zone overrides the workflow's", () => {
    const z = scheduleZone("Europe/Berlin", "UTC");
    expect(z).toEqual({ timezone: "Europe/Berlin", source: "trigger", workflowTimezone: "UTC" });
    expect(describeScheduleZone(z)).toBe("Europe/Berlin (overrides the workflow's UTC)");
  });

  it("no definition zone (nothing published) is UTC", () => {
    expect(scheduleZone(null, null)).toEqual({
      timezone: "UTC",
      source: "workflow",
      workflowTimezone: "UTC",
    });
    expect(describeScheduleZone(scheduleZone(null, undefined))).toBe("UTC (the workflow's zone)");
  });
});
