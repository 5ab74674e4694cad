/**
 * Cron triggers: `TZ=` prefixes, one run per tick, and two executors on one database firing each
 * tick once (real Postgres: two connection pools; PGlite: two executors on the one handle).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows, openDb, type DbHandle } from "../../db/client";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";

const bridge = executorBridge();
const inngest = testClient("cron", bridge);
let berlinRuns = 0;
let minuteRuns = 0;

const berlin = inngest.createFunction(
  { id: "berlin-nine", triggers: [{ cron: "TZ=Europe/Berlin 0 9 * * *" }] },
  async ({ event }) => {
    berlinRuns++;
    return event.data;
  },
);
const everyMinute = inngest.createFunction(
  { id: "every-minute", triggers: [{ cron: "* * * * *" }] },
  async () => {
    minuteRuns++;
    return "tick";
  },
);

const berlinTime = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/Berlin",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});
const hourIn = (ms: number) => berlinTime.format(new Date(ms));

let a: Harness;
let b: Harness;
let secondHandle: DbHandle | undefined;
beforeAll(async () => {
  a = await startHarness({
    client: inngest,
    functions: [berlin, everyMinute],
    bridge,
    label: "cron",
  });
  // The second executor: its own pool on the same Postgres database, or the same PGlite handle.
  secondHandle = a.db.driver === "postgres" ? await openDb({ url: a.db.url }) : undefined;
  b = await startHarness({
    client: inngest,
    functions: [berlin, everyMinute],
    bridge: executorBridge(),
    db: { ...(secondHandle ?? a.db), name: "second" },
    clock: a.clock,
    sync: false,
  });
});
afterAll(async () => {
  await b?.close();
  await secondHandle?.close();
  await a?.close();
});

describe("cron", () => {
  it("fires at the time in the trigger's timezone, once per tick", async () => {
    // Move to just past the next 09:00 in Berlin.
    let t = a.clock.now();
    while (hourIn(t) !== "09:00") t += 60_000 - (t % 60_000);
    a.clock.advanceTo(t + 1_000);
    await Promise.all([a.executor.scanCron(), b.executor.scanCron()]);
    await a.executor.scanCron();
    const runs = await a.executor.admin.listExecutions({ functionId: "cron-berlin-nine" });
    expect(runs).toHaveLength(1);
    const run = await a.waitForExecution(runs[0]!.id);
    expect(run.status).toBe("completed");
    expect(run.eventName).toBe("inngest/scheduled.timer");
    expect(run.output).toEqual({ cron: "TZ=Europe/Berlin 0 9 * * *" });
    expect(hourIn(Number(run.event.ts))).toBe("09:00");
    expect(berlinRuns).toBe(1);
  });

  it("two executors on one database fire each tick exactly once", async () => {
    const before = (
      await a.executor.admin.listExecutions({ functionId: "cron-every-minute", limit: 500 })
    ).length;
    for (let i = 0; i < 5; i++) {
      a.clock.advance(60_000);
      const fired = await Promise.all([a.executor.scanCron(), b.executor.scanCron()]);
      expect(fired[0] + fired[1]).toBe(1);
    }
    const runs = await a.executor.admin.listExecutions({
      functionId: "cron-every-minute",
      limit: 500,
    });
    expect(runs.length - before).toBe(5);
    await Promise.all(runs.map((r) => a.waitForExecution(r.id)));
    const claims = await execRows<{ n: number; distinct_ticks: number }>(
      a.db.db,
      sql`select count(*)::int as n, count(distinct tick_at)::int as distinct_ticks from executor_cron_claims where function_id = 'cron-every-minute'`,
    );
    expect(claims[0]!.n).toBe(claims[0]!.distinct_ticks);
    expect(minuteRuns).toBe(runs.length);
  });
});
