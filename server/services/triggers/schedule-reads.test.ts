/**
 * schedule.preview and schedule.ticks through the tRPC caller: validation messages, DST flags,
 * the minimum-interval verdict, tick paging and workspace scoping.
 */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scheduleTicks, triggers } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId } from "@/lib/ids";
import { createWorkspaceFixture, testConfig, type WorkspaceFixture } from "../../testing/harness";
import { createCaller } from "../../trpc/root";
import { createWorkflow } from "../workflows/create-workflow";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("schedreads");
  fx = await createWorkspaceFixture(t.db, "Reads");
});
afterAll(async () => {
  await t?.close();
});

const caller = (f = fx, over: Partial<ReturnType<WorkspaceFixture["ctx"]>> = {}) =>
  createCaller({ svc: { ...f.ctx("viewer"), ...over } });

async function trpcError(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCError) return e;
    throw e;
  }
  throw new Error("expected a TRPCError");
}

describe("schedule.preview", () => {
  it("lists the next fire times with the Berlin gap flagged", async () => {
    const now = () => new Date("2026-03-27T12:00:00Z");
    const r = await caller(fx, { now }).schedule.preview({
      cron: "30 2 * * *",
      timezone: "Europe/Berlin",
      count: 3,
    });
    expect(r.dstBehaviour).toBe("fixed-time");
    expect(r.times.map((x) => x.local)).toEqual([
      "2026-03-28 02:30",
      "2026-03-29 03:00",
      "2026-03-30 02:30",
    ]);
    expect(r.times[1]!.dstGap).toEqual({ wallTimes: ["2026-03-29 02:30"], handling: "shifted" });
    // 02:30 CET to the shifted 03:00 CEST is 23.5 real hours.
    expect(r.minInterval).toMatchObject({
      ok: true,
      minimumSeconds: 60,
      shortestGapSeconds: 84_600,
    });
  });

  it("flags the October repeat and gives the min-interval verdict from the configuration", async () => {
    const now = () => new Date("2026-10-25T00:10:00Z");
    const r = await caller(fx, {
      now,
      config: { ...testConfig, scheduleMinIntervalSeconds: 3600 },
    }).schedule.preview({
      cron: "*/30 * * * *",
      timezone: "Europe/Berlin",
      count: 4,
    });
    expect(r.times.map((x) => [x.local.slice(11), x.dstRepeat?.occurrence])).toEqual([
      ["02:30", "first"],
      ["02:00", "second"],
      ["02:30", "second"],
      ["03:00", undefined],
    ]);
    expect(r.minInterval.ok).toBe(false);
    expect(r.minInterval.message).toMatch(/minimum interval is 3600 s/);
  });

  it("starts from a given time and pages on past 50 occurrences (a DST change months ahead)", async () => {
    const now = () => new Date("2026-01-05T12:00:00Z");
    const first = await caller(fx, { now }).schedule.preview({
      cron: "0 * * * *",
      timezone: "Europe/Berlin",
      count: 50,
    });
    expect(first.times).toHaveLength(50);
    expect(first.nextFrom).toBe(first.times[49]!.at);
    const page2 = await caller(fx, { now }).schedule.preview({
      cron: "0 * * * *",
      timezone: "Europe/Berlin",
      count: 2,
      from: first.nextFrom!,
    });
    expect(Date.parse(page2.times[0]!.at)).toBe(Date.parse(first.times[49]!.at) + 3_600_000);
    // Months ahead: the October repeat, found by starting the preview there.
    const october = await caller(fx, { now }).schedule.preview({
      cron: "30 2 * * *",
      timezone: "Europe/Berlin",
      count: 2,
      from: "2026-10-24T12:00:00Z",
    });
    expect(october.from).toBe("2026-10-24T12:00:00.000Z");
    expect(october.times[0]!.local).toBe("2026-10-25 02:30");
    expect(october.times[0]!.dstRepeat).toBeDefined();
    // Unknown keys and bad instants are refused, not ignored.
    const unknown = await trpcError(
      caller().schedule.preview({ cron: "0 9 * * *", start: "x" } as never),
    );
    expect(unknown.code).toBe("BAD_REQUEST");
    expect(unknown.message).toMatch(/start/);
    const bad = await trpcError(caller().schedule.preview({ cron: "0 9 * * *", from: "soon" }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/from/);
  });

  it("answers a clear validation error for seconds fields and unknown zones", async () => {
    const six = await trpcError(
      caller().schedule.preview({ cron: "0 0 9 * * *", timezone: "UTC" }),
    );
    expect(six.code).toBe("BAD_REQUEST");
    expect(six.message).toMatch(/6 fields; schedules use exactly 5/);
    const zone = await trpcError(
      caller().schedule.preview({ cron: "0 9 * * *", timezone: "Europe/Atlantis" }),
    );
    expect(zone.code).toBe("BAD_REQUEST");
    expect(zone.message).toMatch(/Unknown time zone "Europe\/Atlantis"/);
  });
});

describe("schedule.ticks", () => {
  async function scheduleWithTicks(f: WorkspaceFixture, n: number) {
    const wf = await createWorkflow({ ctx: f.ctx("owner"), input: { name: "Ticks" } });
    const id = newId("trg");
    await t.db.insert(triggers).values({
      id,
      workspaceId: f.workspaceId,
      workflowId: wf.id,
      kind: "schedule",
      name: "Hourly",
      config: { cron: "0 * * * *" },
    });
    if (n)
      await t.db.insert(scheduleTicks).values(
        Array.from({ length: n }, (_, i) => ({
          triggerId: id,
          workspaceId: f.workspaceId,
          tick: new Date(Date.UTC(2026, 0, 1, i)),
          status: i % 2 ? ("missed" as const) : ("fired" as const),
          reason: i % 2 ? "downtime: misfire policy skip" : null,
        })),
      );
    return id;
  }

  it("pages newest first with a cursor", async () => {
    const id = await scheduleWithTicks(fx, 5);
    const first = await caller().schedule.ticks({ triggerId: id, limit: 3 });
    expect(first.items.map((x) => x.tick.toISOString().slice(11, 13))).toEqual(["04", "03", "02"]);
    expect(first.items[1]).toMatchObject({
      status: "missed",
      reason: "downtime: misfire policy skip",
      runId: null,
    });
    expect(first.nextCursor).toBe("2026-01-01T02:00:00.000Z");
    const second = await caller().schedule.ticks({
      triggerId: id,
      limit: 3,
      cursor: first.nextCursor!,
    });
    expect(second.items.map((x) => x.tick.toISOString().slice(11, 13))).toEqual(["01", "00"]);
    expect(second.nextCursor).toBeNull();
  });

  it("another workspace's schedule is not found", async () => {
    const other = await createWorkspaceFixture(t.db, "ReadsOther");
    const theirs = await scheduleWithTicks(other, 2);
    const e = await trpcError(caller().schedule.ticks({ triggerId: theirs }));
    expect(e.code).toBe("NOT_FOUND");
    expect((await caller(other).schedule.ticks({ triggerId: theirs })).items).toHaveLength(2);
  });
});
