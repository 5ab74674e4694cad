import { describe, expect, it } from "vitest";
import {
  checkMinInterval,
  compileSchedule,
  nextFireTimes,
  ScheduleError,
  scheduleIssues,
} from "./cron";
import {
  MISSED_REASON_LATEST,
  MISSED_REASON_SKIP,
  MISSED_REASON_WINDOW,
  planTicks,
} from "./tick-plan";

const at = (iso: string) => new Date(iso);
const times = (cron: string, timezone: string, from: string, n: number) =>
  nextFireTimes(cron, timezone, at(from), n);

function errorOf(fn: () => unknown): ScheduleError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScheduleError) return e;
    throw e;
  }
  throw new Error("expected a ScheduleError");
}

describe("compileSchedule", () => {
  it("accepts 5 fields and an IANA zone (canonical name kept)", () => {
    const s = compileSchedule(" 0  9 * * 1-5 ", "Europe/Berlin");
    expect(s.cron).toBe("0 9 * * 1-5");
    expect(s.timezone).toBe("Europe/Berlin");
    expect(s.isFixedTime).toBe(true);
    expect(compileSchedule("*/15 * * * *").isFixedTime).toBe(false);
  });

  it("rejects seconds, years, nicknames and wrong field counts with the reason", () => {
    const six = errorOf(() => compileSchedule("0 * * * * *"));
    expect(six.field).toBe("cron");
    expect(six.message).toMatch(/6 fields; schedules use exactly 5 .* seconds are not supported/);
    expect(errorOf(() => compileSchedule("0 0 * * * * 2030")).message).toMatch(/seconds and years/);
    expect(errorOf(() => compileSchedule("* * *")).message).toMatch(/3 fields/);
    expect(errorOf(() => compileSchedule("@daily")).message).toMatch(/nickname.*0 0 \* \* \*/);
    expect(errorOf(() => compileSchedule("")).message).toMatch(/empty/);
  });

  it("names the bad field value and patterns that never fire", () => {
    expect(errorOf(() => compileSchedule("61 * * * *")).message).toMatch(
      /"61 \* \* \* \*".*minute: 61/,
    );
    expect(errorOf(() => compileSchedule("0 0 30 2 *")).message).toMatch(/never fires/);
  });

  it("rejects unknown zones and bare offsets", () => {
    const unknown = errorOf(() => compileSchedule("0 9 * * *", "Mars/Olympus_Mons"));
    expect(unknown.field).toBe("timezone");
    expect(unknown.message).toMatch(/Unknown time zone "Mars\/Olympus_Mons"/);
    expect(errorOf(() => compileSchedule("0 9 * * *", "+02:00")).message).toMatch(
      /not an IANA time zone/,
    );
  });
});

describe("nextFireTimes", () => {
  /*
   * Europe/Berlin, Sunday 2026-03-29: 02:00 CET → 03:00 CEST (02:00–02:59 do not exist).
   *   local  01:30 | 02:00 02:30 (gap) | 03:00 03:30
   *   UTC    00:30 |                   | 01:00 01:30
   */
  it("Berlin spring forward: a fixed time in the gap is shifted to 03:00, once", () => {
    const [first, second] = times("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2);
    expect(first).toMatchObject({
      at: "2026-03-29T01:00:00.000Z",
      local: "2026-03-29 03:00",
      dstGap: { wallTimes: ["2026-03-29 02:30"], handling: "shifted" },
    });
    expect(second).toEqual({
      at: "2026-03-30T00:30:00.000Z",
      local: "2026-03-30 02:30",
      offsetMinutes: 120,
    });
  });

  it("Berlin spring forward: an interval schedule skips the gap's times", () => {
    const fires = times("*/30 * * * *", "Europe/Berlin", "2026-03-29T00:10:00Z", 3);
    expect(fires.map((f) => f.local)).toEqual([
      "2026-03-29 01:30",
      "2026-03-29 03:00",
      "2026-03-29 03:30",
    ]);
    expect(fires[1]!.dstGap).toEqual({
      wallTimes: ["2026-03-29 02:00", "2026-03-29 02:30"],
      handling: "skipped",
    });
    expect(fires[0]!.dstGap).toBeUndefined();
    // A schedule living only in the gap hour skips that whole day.
    const only = times("*/30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 1);
    expect(only[0]).toMatchObject({ local: "2026-03-30 02:00", dstGap: { handling: "skipped" } });
  });

  /*
   * Europe/Berlin, Sunday 2026-10-25: 03:00 CEST → 02:00 CET (02:00–02:59 happen twice).
   *   UTC    00:00 00:30 | 01:00 01:30
   *   local  02:00 02:30 | 02:00 02:30   (+02:00, then +01:00)
   */
  it("Berlin fall back: a fixed time fires once, at the first occurrence", () => {
    const fires = times("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2);
    expect(fires[0]).toMatchObject({
      at: "2026-10-25T00:30:00.000Z",
      local: "2026-10-25 02:30",
      offsetMinutes: 120,
      dstRepeat: { occurrence: "first", firesTwice: false },
    });
    expect(fires[1]!.at).toBe("2026-10-26T01:30:00.000Z");
  });

  it("Berlin fall back: an interval schedule fires on both occurrences", () => {
    const fires = times("*/30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 5);
    expect(
      fires.map((f) => [f.at.slice(11, 16), f.local.slice(11), f.dstRepeat?.occurrence]),
    ).toEqual([
      ["00:00", "02:00", "first"],
      ["00:30", "02:30", "first"],
      ["01:00", "02:00", "second"],
      ["01:30", "02:30", "second"],
      ["01:00", "02:00", undefined],
    ]);
    expect(fires.slice(0, 4).every((f) => f.dstRepeat?.firesTwice)).toBe(true);
  });

  it("America/New_York and Australia/Sydney transitions", () => {
    // New York springs forward 2026-03-08 02:00 → 03:00; falls back 2026-11-01 02:00 → 01:00.
    expect(times("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 1)[0]).toMatchObject({
      at: "2026-03-08T07:00:00.000Z",
      local: "2026-03-08 03:00",
      dstGap: { handling: "shifted" },
    });
    expect(
      times("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2).map((f) => f.at),
    ).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
    // Sydney springs forward 2026-10-04 02:00 → 03:00 (southern hemisphere: October).
    expect(times("30 2 * * *", "Australia/Sydney", "2026-10-03T00:00:00Z", 1)[0]).toMatchObject({
      local: "2026-10-04 03:00",
      dstGap: { wallTimes: ["2026-10-04 02:30"], handling: "shifted" },
    });
    // Sydney falls back 2026-04-05 03:00 → 02:00: hourly at :15 fires 02:15 twice.
    const back = times("15 * * * *", "Australia/Sydney", "2026-04-04T14:00:00Z", 4);
    expect(back.map((f) => f.local.slice(11))).toEqual(["01:15", "02:15", "02:15", "03:15"]);
    expect(back[2]!.dstRepeat).toEqual({ occurrence: "second", firesTwice: true });
  });

  it("month ends and 29 February", () => {
    expect(
      times("0 0 31 * *", "UTC", "2026-01-15T00:00:00Z", 3).map((f) => f.at.slice(0, 10)),
    ).toEqual(["2026-01-31", "2026-03-31", "2026-05-31"]);
    expect(times("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", 2).map((f) => f.at)).toEqual([
      "2028-02-29T00:00:00.000Z",
      "2032-02-29T00:00:00.000Z",
    ]);
    // Last day of February at 23:30 Berlin time is a March instant in UTC only in CEST — not here.
    expect(times("30 23 28 2 *", "Europe/Berlin", "2026-01-01T00:00:00Z", 1)[0]!.at).toBe(
      "2026-02-28T22:30:00.000Z",
    );
  });
});

describe("checkMinInterval", () => {
  const from = at("2026-05-01T00:00:00Z");
  it("accepts once a minute at the 60 s default and rejects denser schedules when raised", () => {
    expect(checkMinInterval(compileSchedule("* * * * *"), 60, from)).toMatchObject({
      ok: true,
      shortestGapSeconds: 60,
    });
    const dense = checkMinInterval(compileSchedule("0,1 * * * *"), 300, from);
    expect(dense).toMatchObject({ ok: false, shortestGapSeconds: 60, minimumSeconds: 300 });
    expect(dense.message).toMatch(/fires every 60 s .* minimum interval is 300 s/);
    expect(checkMinInterval(compileSchedule("*/5 * * * *"), 300, from).ok).toBe(true);
  });
  it("a schedule with one fire in the sample passes", () => {
    expect(checkMinInterval(compileSchedule("0 0 29 2 *"), 60, from, 1)).toMatchObject({
      ok: true,
      shortestGapSeconds: null,
    });
  });
});

describe("scheduleIssues", () => {
  const now = at("2026-05-01T00:00:00Z");
  it("names the config field at fault, or nothing when the schedule is fine", () => {
    expect(scheduleIssues("0 9 * * 1-5", "Europe/Berlin", 60, now)).toEqual([]);
    expect(scheduleIssues("0 9 * * 1-5", "Berlin", 60, now)[0]!.path).toEqual([
      "config",
      "timezone",
    ]);
    expect(scheduleIssues("0 0 9 * * 1-5", "UTC", 60, now)[0]!.path).toEqual(["config", "cron"]);
    expect(scheduleIssues("*/2 * * * *", "UTC", 300, now)).toEqual([
      { path: ["config", "cron"], message: expect.stringMatching(/minimum interval is 300 s/) },
    ]);
  });
});

describe("planTicks", () => {
  const base = { cron: "*/5 * * * *", tz: "UTC", catchUpWindowMinutes: 12 } as const;

  it("null cursor starts from now: only the current minute's tick, nothing recorded before", () => {
    const plan = planTicks({
      ...base,
      cursor: null,
      now: at("2026-01-01T10:30:20Z"),
      misfire: "skip",
    });
    expect(plan.due).toEqual([{ tick: "2026-01-01T10:30:00.000Z" }]);
    expect(plan.missed).toEqual([]);
    expect(plan.cursor).toBe("2026-01-01T10:30:20.000Z");
    expect(
      planTicks({ ...base, cursor: null, now: at("2026-01-01T10:31:20Z"), misfire: "skip" }).due,
    ).toEqual([]);
  });

  it("normal minute: the tick since the cursor fires", () => {
    const plan = planTicks({
      ...base,
      cursor: at("2026-01-01T10:25:00.200Z"),
      now: at("2026-01-01T10:30:00.100Z"),
      misfire: "skip",
    });
    expect(plan.due).toEqual([{ tick: "2026-01-01T10:30:00.000Z" }]);
    expect(plan.missed).toEqual([]);
  });

  /*
   *  cursor 10:00 ── 10:05 10:10 10:15 10:20 10:25 10:30 ── now 10:30:10   window 12 min (10:18:10)
   *  skip:           m     m     m     m     m     FIRE
   *  latest:         w     w     w     l     l     FIRE    (w: outside window, l: superseded)
   */
  it("downtime under skip and latest with a tick this minute", () => {
    const args = { ...base, cursor: at("2026-01-01T10:00:00Z"), now: at("2026-01-01T10:30:10Z") };
    const skip = planTicks({ ...args, misfire: "skip" });
    expect(skip.due).toEqual([{ tick: "2026-01-01T10:30:00.000Z" }]);
    expect(skip.missed.map((m) => m.reason)).toEqual(Array(5).fill(MISSED_REASON_SKIP));
    const latest = planTicks({ ...args, misfire: "latest" });
    expect(latest.due).toEqual([{ tick: "2026-01-01T10:30:00.000Z" }]);
    expect(latest.missed.map((m) => [m.tick.slice(11, 16), m.reason])).toEqual([
      ["10:05", MISSED_REASON_WINDOW],
      ["10:10", MISSED_REASON_WINDOW],
      ["10:15", MISSED_REASON_WINDOW],
      ["10:20", MISSED_REASON_LATEST],
      ["10:25", MISSED_REASON_LATEST],
    ]);
  });

  it("downtime with no tick this minute: latest catches up once within the window, skip fires nothing", () => {
    const args = { ...base, cursor: at("2026-01-01T10:00:00Z"), now: at("2026-01-01T10:27:00Z") };
    expect(planTicks({ ...args, misfire: "skip" }).due).toEqual([]);
    const latest = planTicks({ ...args, misfire: "latest" });
    expect(latest.due).toEqual([{ tick: "2026-01-01T10:25:00.000Z" }]);
    expect(latest.missed).toHaveLength(4);
    // The most recent missed tick is older than the window: nothing fires.
    const late = planTicks({
      ...args,
      now: at("2026-01-01T10:29:00Z"),
      catchUpWindowMinutes: 2,
      misfire: "latest",
    });
    expect(late.due).toEqual([]);
    expect(late.missed.at(-1)).toEqual({
      tick: "2026-01-01T10:25:00.000Z",
      reason: MISSED_REASON_WINDOW,
    });
  });

  it("a long outage lists at most 100 missed ticks and never walks beyond the horizon", () => {
    const plan = planTicks({
      cron: "* * * * *",
      tz: "UTC",
      catchUpWindowMinutes: 60,
      cursor: at("2025-01-01T00:00:00Z"),
      now: at("2026-01-01T00:00:30Z"),
      misfire: "skip",
    });
    expect(plan.due).toEqual([{ tick: "2026-01-01T00:00:00.000Z" }]);
    expect(plan.missed).toHaveLength(100);
    expect(plan.omittedMissed).toBe(8 * 24 * 60 - 1 - 100);
    expect(plan.horizonStart).toBe("2025-12-24T00:00:30.000Z");
  });

  it("across the Berlin changes, planning minute by minute fires each tick the right number of times", () => {
    const count = (cron: string, fromIso: string, hours: number) => {
      let cursor: Date | null = null;
      const fired: string[] = [];
      for (
        let t = at(fromIso).getTime();
        t < at(fromIso).getTime() + hours * 3_600_000;
        t += 60_000
      ) {
        const plan = planTicks({
          cron,
          tz: "Europe/Berlin",
          cursor,
          now: new Date(t + 500),
          misfire: "skip",
          catchUpWindowMinutes: 60,
        });
        expect(plan.missed).toEqual([]);
        fired.push(...plan.due.map((d) => d.tick));
        cursor = new Date(plan.cursor);
      }
      return fired;
    };
    // March: 02:30 shifted to 03:00 (once); */30 between 00:00 and 04:00 local: 00:00..01:30, 03:00, 03:30 = 6.
    expect(count("30 2 * * *", "2026-03-28T23:00:00Z", 4)).toEqual(["2026-03-29T01:00:00.000Z"]);
    expect(count("*/30 * * * *", "2026-03-28T23:00:00Z", 3)).toHaveLength(6);
    // October: 02:30 once; */30 sees 02:00 and 02:30 twice (5 real hours from 00:00 local = 10).
    expect(count("30 2 * * *", "2026-10-24T22:00:00Z", 5)).toEqual(["2026-10-25T00:30:00.000Z"]);
    expect(count("*/30 * * * *", "2026-10-24T22:00:00Z", 5)).toHaveLength(10);
  });
});
