/**
 * Schedule zones (issue #25.10, SPEC §7 "IANA timezone (definition-level)"): a schedule without
 * its own `config.timezone` fires in the zone of its workflow's current published version and
 * follows a newly published one; a trigger's own zone is an explicit override. Migration 0018
 * turns every existing schedule's zone into such an override, so no fire time moves — proved on
 * a database built by the migrations before it. Real database (PGlite, and Postgres in the
 * postgres project), the real scheduler with a clock moved by hand.
 */
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scheduleTicks, triggers } from "@/db/schema";
import { migrateDb } from "@/db/migrate";
import { createTestDb, migrationsBefore, type TestDb } from "@/db/testing";
import type { Db } from "@/db/client";
import { newId } from "@/lib/ids";
import { createLogger } from "@/lib/log";
import { nextFireTimes } from "@/lib/triggers/cron";
import {
  createWorkspaceFixture,
  testConfig,
  testKeys,
  type WorkspaceFixture,
} from "../../testing/harness";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { createTrigger } from "./create-trigger";
import { evaluateSchedules } from "./evaluate-schedules";
import { getTrigger } from "./get-trigger";
import { listTriggers } from "./list-triggers";
import { previewSchedule } from "./preview-schedule";
import { updateTrigger } from "./update-trigger";

const log = createLogger({ test: "schedule-timezone" });
const evaluate = (db: Db, at: string) =>
  evaluateSchedules({ db, keys: testKeys, config: testConfig, log, now: new Date(at) });

/** Publishes (a new version of) a one-step workflow whose definition says `timezone`. */
async function publishWithZone(
  fx: WorkspaceFixture,
  timezone: string | undefined,
  workflowId?: string,
): Promise<string> {
  const id =
    workflowId ??
    (await createWorkflow({ ctx: fx.ctx("editor"), input: { name: `Zoned ${newId("n")}` } })).id;
  await saveDraft({
    ctx: fx.ctx("editor"),
    input: {
      workflowId: id,
      definition: {
        schemaVersion: 1,
        name: "Zoned",
        ...(timezone ? { timezone } : {}),
        steps: [{ id: "a", type: "transform", config: { value: 1 } }],
      },
    },
  });
  await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: id } });
  return id;
}

const ticksOf = (db: Db, triggerId: string) =>
  db
    .select()
    .from(scheduleTicks)
    .where(eq(scheduleTicks.triggerId, triggerId))
    .orderBy(asc(scheduleTicks.tick));

describe("schedules in the workflow's zone", () => {
  let t: TestDb;
  let fx: WorkspaceFixture;
  beforeAll(async () => {
    t = await createTestDb("schedule-tz");
    fx = await createWorkspaceFixture(t.db, "Zones");
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    await t.db.update(triggers).set({ enabled: false }).where(eq(triggers.kind, "schedule"));
  });

  async function scheduleOn(workflowId: string, config: Record<string, unknown>) {
    const r = await createTrigger({
      ctx: fx.ctx("editor"),
      input: {
        kind: "schedule",
        workflowId,
        name: "Morning",
        config: { cron: "0 9 * * *", overlap: "allow", ...config },
      },
    });
    // The scheduler plans from an edit's time; the test clock runs in 2026.
    await t.db
      .update(triggers)
      .set({ updatedAt: new Date("2026-01-01T00:00:00Z") })
      .where(eq(triggers.id, r.trigger.id));
    return r.trigger.id;
  }

  it("a schedule without a zone fires in the definition's zone and follows a newly published one", async () => {
    const wf = await publishWithZone(fx, "Asia/Tokyo");
    const id = await scheduleOn(wf, {});
    // Nothing defaulted into the stored config: absent = inherit.
    const [row] = await t.db.select().from(triggers).where(eq(triggers.id, id));
    expect(row!.config).not.toHaveProperty("timezone");
    const shown = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: id } });
    expect(shown.schedule).toEqual({
      timezone: "Asia/Tokyo",
      source: "workflow",
      workflowTimezone: "Asia/Tokyo",
    });

    await evaluate(t.db, "2026-06-01T23:59:01Z");
    // 09:00 in Tokyo is 00:00 UTC (UTC would be 09:00Z).
    expect((await evaluate(t.db, "2026-06-02T00:00:01Z")).fired).toBe(1);
    const [tokyo] = await ticksOf(t.db, id);
    expect(tokyo).toMatchObject({ tick: new Date("2026-06-02T00:00:00Z"), status: "fired" });

    // Publishing Berlin moves the schedule: 09:00 CEST = 07:00Z, and 00:00Z no longer fires.
    await publishWithZone(fx, "Europe/Berlin", wf);
    expect(
      (await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: id } })).schedule,
    ).toMatchObject({ timezone: "Europe/Berlin", source: "workflow" });
    expect((await evaluate(t.db, "2026-06-02T06:59:01Z")).fired).toBe(0);
    expect((await evaluate(t.db, "2026-06-02T07:00:01Z")).fired).toBe(1);
    expect((await evaluate(t.db, "2026-06-03T00:00:01Z")).fired).toBe(0);
    const ticks = await ticksOf(t.db, id);
    expect(ticks.map((k) => [k.tick.toISOString(), k.status])).toEqual([
      ["2026-06-02T00:00:00.000Z", "fired"],
      ["2026-06-02T07:00:00.000Z", "fired"],
    ]);
  });

  it("a trigger's own zone overrides the definition's and is shown as an override", async () => {
    const wf = await publishWithZone(fx, "Asia/Tokyo");
    const id = await scheduleOn(wf, { timezone: "America/New_York" });
    const [listed] = (await listTriggers({ ctx: fx.ctx("viewer"), input: { workflowId: wf } }))!;
    expect(listed!.schedule).toEqual({
      timezone: "America/New_York",
      source: "trigger",
      workflowTimezone: "Asia/Tokyo",
    });
    await evaluate(t.db, "2026-06-02T12:59:01Z");
    // 09:00 EDT = 13:00Z; the workflow's Tokyo 09:00 (00:00Z) is not this trigger's time.
    expect((await evaluate(t.db, "2026-06-02T13:00:01Z")).fired).toBe(1);
    expect((await evaluate(t.db, "2026-06-03T00:00:01Z")).fired).toBe(0);
    // Editing the zone away makes it inherit.
    await updateTrigger({
      ctx: fx.ctx("editor"),
      input: { triggerId: id, config: { cron: "0 9 * * *", overlap: "allow" } },
    });
    expect(
      (await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: id } })).schedule,
    ).toMatchObject({ timezone: "Asia/Tokyo", source: "workflow" });
  });

  it("no published version (no definition zone) means UTC", async () => {
    const wf = await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Unpublished" } });
    const id = await scheduleOn(wf.id, {});
    expect(
      (await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: id } })).schedule,
    ).toEqual({ timezone: "UTC", source: "workflow", workflowTimezone: "UTC" });
    // A definition that states no zone gets the schema's default, UTC, as well.
    const plain = await publishWithZone(fx, undefined);
    const p = await previewSchedule({
      ctx: fx.ctx("viewer"),
      input: { cron: "0 9 * * *", workflowId: plain, count: 1, from: "2026-06-01T00:00:00Z" },
    });
    expect(p).toMatchObject({ timezone: "UTC", timezoneSource: "workflow" });
  });

  it("the preview resolves a blank zone to the workflow's, and refuses another workspace's workflow", async () => {
    const wf = await publishWithZone(fx, "Asia/Tokyo");
    const from = "2026-06-01T00:00:00Z";
    const inherited = await previewSchedule({
      ctx: fx.ctx("viewer"),
      input: { cron: "0 9 * * *", workflowId: wf, count: 1, from },
    });
    expect(inherited).toMatchObject({
      timezone: "Asia/Tokyo",
      timezoneSource: "workflow",
      workflowTimezone: "Asia/Tokyo",
      times: [{ at: "2026-06-02T00:00:00.000Z" }],
    });
    const own = await previewSchedule({
      ctx: fx.ctx("viewer"),
      input: { cron: "0 9 * * *", timezone: "Europe/Berlin", workflowId: wf, count: 1, from },
    });
    expect(own).toMatchObject({ timezone: "Europe/Berlin", timezoneSource: "trigger" });
    const other = await createWorkspaceFixture(t.db, "Elsewhere");
    await expect(
      previewSchedule({
        ctx: other.ctx("viewer"),
        input: { cron: "0 9 * * *", workflowId: wf },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a blank or unknown override is refused at config.timezone", async () => {
    const wf = await publishWithZone(fx, "Asia/Tokyo");
    for (const timezone of ["  ", "Mars/Olympus"])
      await expect(
        createTrigger({
          ctx: fx.ctx("editor"),
          input: {
            kind: "schedule",
            workflowId: wf,
            name: "Bad",
            config: { cron: "0 9 * * *", timezone },
          },
        }),
      ).rejects.toMatchObject({
        code: "VALIDATION",
        issues: [expect.objectContaining({ path: ["config", "timezone"] })],
      });
  });
});

describe("migration 0018: existing schedules keep their zone", () => {
  let t: TestDb;
  afterAll(async () => {
    await t?.close();
  });

  it("next fire times before and after the migration are equal (and the scheduler fires them)", async () => {
    // The database as the release before 0018 left it, with schedules as it stored them.
    t = await createTestDb("tz-migration", {
      migrationsFolder: migrationsBefore("0018_schedule_timezone_override"),
    });
    const fx = await createWorkspaceFixture(t.db, "Legacy");
    // A bare workflow row as the old schema takes it (today's services also write tables that
    // later migrations add, e.g. the history chain); it is published after the migration.
    const wf = newId("wf");
    await t.db.execute(
      sql`insert into workflows (id, workspace_id, name, slug, draft) values (${wf}, ${fx.workspaceId}, 'Zoned', ${wf}, '{}'::jsonb)`,
    );
    const legacy: Record<string, Record<string, unknown>> = {
      // Written without a zone (the old schema default UTC applied when read).
      missing: { cron: "0 9 * * *", overlap: "allow" },
      // The old form's default: the browser's zone.
      browser: { cron: "30 8 * * *", timezone: "Europe/Berlin", overlap: "allow" },
      utc: { cron: "15 10 * * *", timezone: "UTC", overlap: "allow" },
    };
    const ids: Record<string, string> = {};
    for (const [name, config] of Object.entries(legacy)) {
      ids[name] = newId("trg");
      await t.db.insert(triggers).values({
        id: ids[name],
        workspaceId: fx.workspaceId,
        workflowId: wf,
        kind: "schedule",
        name,
        config,
        createdBy: fx.members.editor,
        updatedAt: new Date("2026-01-01T00:00:00Z"),
      });
    }
    const from = new Date("2026-06-01T00:00:30Z");
    // The old rule: the trigger's own zone, UTC when it had none.
    const before = Object.fromEntries(
      Object.entries(legacy).map(([name, c]) => [
        name,
        nextFireTimes(String(c.cron), (c.timezone as string | undefined) ?? "UTC", from, 3).map(
          (f) => f.at,
        ),
      ]),
    );

    await migrateDb(t);
    // The workflow's own zone is neither of the triggers' zones: inheriting would move them.
    await publishWithZone(fx, "Asia/Tokyo", wf);

    for (const [name, id] of Object.entries(ids)) {
      const shown = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: id } });
      expect(shown.schedule!.source, name).toBe("trigger");
      const after = nextFireTimes(String(legacy[name]!.cron), shown.schedule!.timezone, from, 3);
      expect(
        after.map((f) => f.at),
        name,
      ).toEqual(before[name]);
    }
    const [missing] = await t.db.select().from(triggers).where(eq(triggers.id, ids.missing!));
    expect(missing!.config).toMatchObject({ timezone: "UTC" });

    // And the scheduler fires each at exactly its old first time.
    await evaluate(t.db, from.toISOString());
    const firsts = Object.entries(before)
      .map(([name, times]) => [name, times[0]!] as const)
      .sort((a, b) => a[1].localeCompare(b[1]));
    for (const [name, at] of firsts) {
      await evaluate(t.db, new Date(Date.parse(at) + 1_000).toISOString());
      const fired = (await ticksOf(t.db, ids[name]!)).filter((k) => k.status === "fired");
      expect(
        fired.map((k) => k.tick.toISOString()),
        name,
      ).toEqual([at]);
    }
  });
});
