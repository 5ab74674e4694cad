/**
 * The scheduler against a real database (PGlite, and Postgres in the postgres project): a clock
 * we move by hand across the Berlin DST changes, downtime under each misfire policy, two
 * schedulers racing for the same minute, overlap, disabled and broken triggers. Trigger rows are
 * inserted directly (trigger CRUD is its own service).
 */
import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDb, type DbHandle } from "@/db/client";
import { runs, scheduleTicks, triggers, workflows } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId } from "@/lib/ids";
import { createLogger } from "@/lib/log";
import {
  MISSED_REASON_LATEST,
  MISSED_REASON_SKIP,
  MISSED_REASON_WINDOW,
} from "@/lib/triggers/tick-plan";
import {
  createWorkspaceFixture,
  testConfig,
  testKeys,
  type WorkspaceFixture,
} from "../../testing/harness";
import type { ServiceConfig } from "../context";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { evaluateSchedules, type EvaluateSchedulesResult } from "./evaluate-schedules";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("schedules");
  fx = await createWorkspaceFixture(t.db, "Sched");
});
afterAll(async () => {
  await t?.close();
});
// Every evaluation sees every enabled trigger: each test leaves none behind for the next.
afterEach(async () => {
  await t.db.update(triggers).set({ enabled: false }).where(eq(triggers.kind, "schedule"));
});

const log = createLogger({ test: "schedules" });
const config: ServiceConfig = {
  ...testConfig,
  maxActiveRunsPerWorkspace: 1000,
  maxActiveRunsPerUser: 1000,
};

function evaluate(now: Date | string, db = t.db, cfg: ServiceConfig = config) {
  return evaluateSchedules({ db, keys: testKeys, config: cfg, log, now: new Date(now) });
}

async function publishedWorkflow(name = "Scheduled"): Promise<string> {
  const wf = await createWorkflow({ ctx: fx.ctx("editor"), input: { name } });
  await saveDraft({
    ctx: fx.ctx("editor"),
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name,
        inputs: { region: { type: "string", default: "us" } },
        steps: [{ id: "a", type: "transform", config: { value: 1 } }],
      },
    },
  });
  await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: wf.id } });
  return wf.id;
}

async function schedule(
  cfg: Record<string, unknown>,
  opts: { workflowId?: string; cursor?: string | null; enabled?: boolean } = {},
): Promise<string> {
  const id = newId("trg");
  await t.db.insert(triggers).values({
    id,
    workspaceId: fx.workspaceId,
    workflowId: opts.workflowId ?? (await publishedWorkflow()),
    kind: "schedule",
    name: `S ${cfg.cron as string}`,
    enabled: opts.enabled ?? true,
    config: { timezone: "UTC", overlap: "allow", ...cfg },
    createdBy: fx.members.editor,
    scheduleCursor: opts.cursor ? new Date(opts.cursor) : null,
    // Test clocks run in 2026; an edit time after the cursor would restart planning (see below).
    createdAt: new Date("2026-01-01T00:00:00Z"),
    updatedAt: new Date("2026-01-01T00:00:00Z"),
  });
  return id;
}

const runsOf = (triggerId: string) =>
  t.db.select().from(runs).where(eq(runs.triggerId, triggerId)).orderBy(asc(runs.createdAt));
const ticksOf = (triggerId: string) =>
  t.db
    .select()
    .from(scheduleTicks)
    .where(eq(scheduleTicks.triggerId, triggerId))
    .orderBy(asc(scheduleTicks.tick));

/** Evaluates once a minute (one second past it) from `fromIso` for `minutes` minutes. */
async function everyMinute(
  fromIso: string,
  minutes: number,
  db = t.db,
): Promise<EvaluateSchedulesResult[]> {
  const out: EvaluateSchedulesResult[] = [];
  const start = new Date(fromIso).getTime();
  for (let i = 0; i < minutes; i++)
    out.push(await evaluate(new Date(start + i * 60_000 + 1_000), db));
  return out;
}

describe("evaluateSchedules", () => {
  it("fires a tick once with the tick payload and a per-tick idempotency key", async () => {
    const id = await schedule({ cron: "*/5 * * * *", input: { region: "eu" } });
    // Cursor null: the first evaluation starts from now and records nothing before it.
    expect((await evaluate("2026-06-01T09:58:01Z")).fired).toBe(0);
    expect(await ticksOf(id)).toEqual([]);
    const r = await evaluate("2026-06-01T10:00:00.300Z");
    expect(r.fired).toBe(1);
    // Evaluating the same minute again (a retried step) finds the claim and fires nothing.
    expect((await evaluate("2026-06-01T10:00:30Z")).fired).toBe(0);
    const [run] = await runsOf(id);
    expect(run).toMatchObject({
      triggerType: "schedule",
      initiatorType: "schedule",
      initiatorId: id,
      input: { region: "eu" },
      idempotencyKey: `schedule:${id}:2026-06-01T10:00:00.000Z`,
      triggerPayload: {
        tick: "2026-06-01T10:00:00.000Z",
        scheduledFor: "2026-06-01T10:00:00+00:00",
        timezone: "UTC",
      },
    });
    const ticks = await ticksOf(id);
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({ status: "fired", runId: run!.id, reason: null });
    const [trg] = await t.db.select().from(triggers).where(eq(triggers.id, id));
    expect(trg!.lastRunId).toBe(run!.id);
    expect(trg!.scheduleCursor?.toISOString()).toBe("2026-06-01T10:00:30.000Z");
  });

  /*
   * Berlin, 2026-03-29 (UTC 00:20 → 01:40): local 01:20 CET … 02:00 jumps to 03:00 CEST … 03:40.
   *   30 2 * * *     02:30 does not exist → fires once at 03:00 (01:00Z)
   *   every 30 min   01:30, (02:00, 02:30 skipped), 03:00, 03:30 → 3
   */
  it("Berlin spring forward, minute by minute: fixed time shifted once, interval times skipped", async () => {
    const fixed = await schedule({ cron: "30 2 * * *", timezone: "Europe/Berlin" });
    const interval = await schedule({ cron: "*/30 * * * *", timezone: "Europe/Berlin" });
    const results = await everyMinute("2026-03-29T00:20:00Z", 80);
    expect(results.reduce((n, r) => n + r.missed + r.failed, 0)).toBe(0);
    expect(
      (await runsOf(fixed)).map((r) => (r.triggerPayload as { scheduledFor: string }).scheduledFor),
    ).toEqual(["2026-03-29T03:00:00+02:00"]);
    expect((await ticksOf(interval)).map((x) => x.tick.toISOString())).toEqual([
      "2026-03-29T00:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T01:30:00.000Z",
    ]);
    expect(await runsOf(interval)).toHaveLength(3);
  });

  /*
   * Berlin, 2026-10-25 (UTC 23:50 → 01:40): 03:00 CEST falls back to 02:00 CET.
   *   UTC     00:00  00:30 | 01:00  01:30
   *   local   02:00  02:30 | 02:00  02:30
   *   30 2 * * *     fires once (00:30Z, the first 02:30)
   *   0,30 2 * * *   fires four times (both passes of 02:00 and 02:30)
   */
  it("Berlin fall back, minute by minute: fixed time once, interval times twice", async () => {
    const fixed = await schedule({ cron: "30 2 * * *", timezone: "Europe/Berlin" });
    const interval = await schedule({ cron: "*/30 2 * * *", timezone: "Europe/Berlin" });
    await everyMinute("2026-10-24T23:50:00Z", 110);
    expect((await runsOf(fixed)).map((r) => r.triggerPayload)).toEqual([
      {
        tick: "2026-10-25T00:30:00.000Z",
        scheduledFor: "2026-10-25T02:30:00+02:00",
        timezone: "Europe/Berlin",
      },
    ]);
    expect(
      (await runsOf(interval)).map(
        (r) => (r.triggerPayload as { scheduledFor: string }).scheduledFor,
      ),
    ).toEqual([
      "2026-10-25T02:00:00+02:00",
      "2026-10-25T02:30:00+02:00",
      "2026-10-25T02:00:00+01:00",
      "2026-10-25T02:30:00+01:00",
    ]);
  });

  /*
   *  cursor 10:00 ── 10:05 10:10 10:15 10:20 10:25 ── scheduler back at 10:27   (window 11 min)
   *  skip:           m     m     m     m     m        nothing fires
   *  latest:         w     w     w     l     FIRE     (w: outside window, l: not the latest)
   */
  it("downtime: skip records every tick missed; latest catches up the most recent once", async () => {
    const skip = await schedule(
      { cron: "*/5 * * * *", misfire: "skip" },
      { cursor: "2026-07-01T10:00:00Z" },
    );
    const latest = await schedule(
      { cron: "*/5 * * * *", misfire: "latest", catchUpWindowMinutes: 11 },
      { cursor: "2026-07-01T10:00:00Z" },
    );
    await evaluate("2026-07-01T10:27:00Z");
    expect(await runsOf(skip)).toEqual([]);
    expect((await ticksOf(skip)).map((x) => [x.status, x.reason])).toEqual(
      Array(5).fill(["missed", MISSED_REASON_SKIP]),
    );
    const latestRuns = await runsOf(latest);
    expect(latestRuns).toHaveLength(1);
    expect((latestRuns[0]!.triggerPayload as { tick: string }).tick).toBe(
      "2026-07-01T10:25:00.000Z",
    );
    expect(
      (await ticksOf(latest)).map((x) => [x.tick.toISOString().slice(11, 16), x.status, x.reason]),
    ).toEqual([
      ["10:05", "missed", MISSED_REASON_WINDOW],
      ["10:10", "missed", MISSED_REASON_WINDOW],
      ["10:15", "missed", MISSED_REASON_WINDOW],
      ["10:20", "missed", MISSED_REASON_LATEST],
      ["10:25", "fired", null],
    ]);
    // Back to normal: the next tick fires for both.
    await evaluate("2026-07-01T10:30:01Z");
    expect(await runsOf(skip)).toHaveLength(1);
    expect(await runsOf(latest)).toHaveLength(2);
  });

  it("downtime longer than the catch-up window: latest fires nothing", async () => {
    const id = await schedule(
      { cron: "0 * * * *", misfire: "latest", catchUpWindowMinutes: 30 },
      { cursor: "2026-07-02T07:30:00Z" },
    );
    await evaluate("2026-07-02T09:45:00Z");
    expect(await runsOf(id)).toEqual([]);
    expect(
      (await ticksOf(id)).map((x) => [x.tick.toISOString().slice(11, 16), x.status, x.reason]),
    ).toEqual([
      ["08:00", "missed", MISSED_REASON_WINDOW],
      ["09:00", "missed", MISSED_REASON_WINDOW],
    ]);
  });

  it("overlap skip: a tick while the previous run is unfinished is skipped with the reason", async () => {
    const id = await schedule({ cron: "* * * * *", overlap: "skip" });
    await everyMinute("2026-08-01T12:00:00Z", 2);
    const [first, ...rest] = await runsOf(id);
    expect(rest).toEqual([]);
    const ticks = await ticksOf(id);
    expect(ticks.map((x) => x.status)).toEqual(["fired", "skipped"]);
    expect(ticks[1]!.reason).toBe(
      `overlap policy skip: run ${first!.id} of this schedule is still ${first!.status}`,
    );
    // Once it finished, the next tick fires again.
    await t.db
      .update(runs)
      .set({ status: "completed", finishedAt: new Date() })
      .where(eq(runs.id, first!.id));
    await evaluate("2026-08-01T12:02:01Z");
    expect(await runsOf(id)).toHaveLength(2);
  });

  it("overlap queue and allow start a run on every tick", async () => {
    const queue = await schedule({ cron: "* * * * *", overlap: "queue" });
    const allow = await schedule({ cron: "* * * * *", overlap: "allow" });
    await everyMinute("2026-08-02T12:00:00Z", 3);
    expect(await runsOf(queue)).toHaveLength(3);
    expect(await runsOf(allow)).toHaveLength(3);
  });

  it("re-enabled after a pause (updated_at after the cursor): the pause is not downtime", async () => {
    const id = await schedule(
      { cron: "*/5 * * * *", misfire: "latest" },
      { cursor: "2026-08-10T08:00:00Z" },
    );
    await t.db
      .update(triggers)
      .set({ updatedAt: new Date("2026-08-10T10:02:00Z") })
      .where(eq(triggers.id, id));
    await evaluate("2026-08-10T10:04:00Z");
    expect(await ticksOf(id)).toEqual([]);
    await evaluate("2026-08-10T10:05:01Z");
    expect((await ticksOf(id)).map((x) => [x.tick.toISOString().slice(11, 16), x.status])).toEqual([
      ["10:05", "fired"],
    ]);
  });

  it("a disabled trigger does nothing", async () => {
    const id = await schedule({ cron: "* * * * *" }, { enabled: false });
    await everyMinute("2026-08-03T12:00:00Z", 3);
    expect(await runsOf(id)).toEqual([]);
    expect(await ticksOf(id)).toEqual([]);
    const [trg] = await t.db.select().from(triggers).where(eq(triggers.id, id));
    expect(trg!.scheduleCursor).toBeNull();
  });

  it("an unpublished workflow fails its tick with the reason; other schedules still fire", async () => {
    const draft = await createWorkflow({
      ctx: fx.ctx("editor"),
      input: { name: "Never published" },
    });
    await t.db.update(workflows).set({ currentVersionId: null }).where(eq(workflows.id, draft.id));
    const broken = await schedule({ cron: "* * * * *" }, { workflowId: draft.id });
    const fine = await schedule({ cron: "* * * * *" });
    const [r] = await everyMinute("2026-08-04T12:00:00Z", 1);
    expect(r).toMatchObject({ fired: 1, failed: 1 });
    const [tick] = await ticksOf(broken);
    expect(tick).toMatchObject({ status: "failed", runId: null });
    expect(tick!.reason).toMatch(/has no published version yet/);
    expect(await runsOf(fine)).toHaveLength(1);
  });

  it("a schedule denser than the minimum interval fails once with the reason, and never fires", async () => {
    const id = await schedule({ cron: "* * * * *" });
    const strict = { ...config, scheduleMinIntervalSeconds: 300 };
    for (const m of ["12:00:01", "12:01:01", "12:02:01"])
      await evaluate(`2026-08-05T${m}Z`, t.db, strict);
    expect(await runsOf(id)).toEqual([]);
    const ticks = await ticksOf(id);
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({ status: "failed" });
    expect(ticks[0]!.reason).toMatch(/fires every 60 s .* minimum interval is 300 s/);
  });

  it("an invalid stored config fails with a message naming the field", async () => {
    const id = await schedule({ cron: "0 9 * * *", timezone: "Mars/Olympus_Mons" });
    await evaluate("2026-08-06T09:00:01Z");
    const [tick] = await ticksOf(id);
    expect(tick!.reason).toMatch(/Unknown time zone "Mars\/Olympus_Mons"/);
  });
});

describe("two schedulers on one database", () => {
  let second: DbHandle | undefined;
  beforeAll(async () => {
    // Postgres: a second pool (separate connections and transactions). PGlite: the one handle.
    second = t.driver === "postgres" ? await openDb({ url: t.url!, maxConnections: 4 }) : undefined;
  });
  afterAll(async () => {
    await second?.close();
  });

  it("evaluating the same minutes concurrently starts exactly one run per tick", async () => {
    const ids = await Promise.all([1, 2, 3].map(() => schedule({ cron: "* * * * *" })));
    const other = second?.db ?? t.db;
    const start = new Date("2026-09-01T08:00:00Z").getTime();
    let contested = 0;
    for (let i = 0; i < 5; i++) {
      const now = new Date(start + i * 60_000 + 1_000);
      const [a, b] = await Promise.all([evaluate(now), evaluate(now, other)]);
      // Every tick of every trigger is won exactly once.
      expect(a.fired + b.fired).toBe(ids.length);
      contested += a.lost + b.lost;
    }
    // Both planned the same ticks and one insert lost (the race really happened, on Postgres).
    if (t.driver === "postgres") expect(contested).toBeGreaterThan(0);
    for (const id of ids) {
      const r = await runsOf(id);
      expect(r).toHaveLength(5);
      expect(new Set(r.map((x) => x.idempotencyKey)).size).toBe(5);
      const ticks = await t.db
        .select()
        .from(scheduleTicks)
        .where(and(eq(scheduleTicks.triggerId, id), eq(scheduleTicks.status, "fired")));
      expect(ticks).toHaveLength(5);
      expect(new Set(ticks.map((x) => x.runId)).size).toBe(5);
    }
  });
});
