/**
 * Reliability suite (issue 16 items a and b), at test scale; bench/reliability.ts runs the same
 * scenarios (test-fixtures/reliability-scenarios.ts) with 100 runs and records BENCHMARKS.md.
 *
 * (a) SIGKILL of the whole stack while runs with parallel branches, delays, approval gates and
 *     http calls are in flight; after a restart on the same data, and the gates approved through
 *     the service, every run completes with each step result recorded exactly once.
 * (b) A private Postgres cluster stopped (`pg_ctl stop -m fast`: connections drop) and started
 *     again mid-run while webhook deliveries keep arriving: no run and no accepted delivery lost
 *     or duplicated. Runs once, in the pglite project (it brings its own Postgres), and is skipped
 *     with the reason in its name when no initdb is installed.
 * (c) Two instances on one Postgres; the one with http calls in flight is killed and never comes
 *     back: the survivor repeats those calls once their lease expires, and every run completes.
 *     Postgres project only (a PGlite folder has one opener).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDb, testDriver, type TestDb } from "@/db/testing";
import {
  failover,
  killNine,
  postgresBinaries,
  postgresRestart,
} from "./test-fixtures/reliability-scenarios";

const RUNS = Number(process.env.RELIABILITY_RUNS ?? 20);
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe("reliability suite", () => {
  it(`(a) kill -9 during ${RUNS} runs: every run completes once, no step result twice`, async () => {
    let target: string;
    if (testDriver() === "postgres") {
      const db: TestDb = await createTestDb("kill9");
      cleanup.push(() => db.close());
      target = db.url!;
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-kill9-pglite-"));
      cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      target = path.join(dir, "pglite");
    }
    const r = await killNine({ runs: RUNS, target });
    console.info(`kill -9: ${JSON.stringify({ ...r, atKill: undefined })}`);
    // Killed mid-flight: runs were waiting at their gates, none had finished.
    expect(r.atKill.pendingApprovals).toBeGreaterThan(0);
    expect(r.atKill.byStatus.completed ?? 0).toBe(0);
    expect(r.problems).toEqual([]);
    expect(r.final.byStatus).toEqual({ completed: RUNS });
    expect(r.final.stepRows).toBeGreaterThanOrEqual(RUNS * 5);
  }, 600_000);

  const bins = postgresBinaries();
  const skip = testDriver() === "postgres" || !bins;
  it.skipIf(skip)(
    `(b) Postgres stopped and restarted mid-run: no run or webhook delivery lost${bins ? "" : " (skipped: no initdb under /usr/lib/postgresql/*/bin)"}`,
    async () => {
      const r = await postgresRestart({ runs: Math.max(5, Math.round(RUNS / 2)) });
      console.info(`postgres restart: ${JSON.stringify(r)}`);
      expect(r.sentDuringOutage).toBeGreaterThan(0);
      expect(r.deliveriesAccepted).toBe(r.deliveriesSent);
      expect(r.problems).toEqual([]);
      expect(r.final.webhookRuns).toBe(r.deliveriesAccepted);
    },
    600_000,
  );

  it.skipIf(testDriver() !== "postgres")(
    "(c) one of two instances killed mid-flight: the survivor takes over its runs",
    async () => {
      const db: TestDb = await createTestDb("failover");
      cleanup.push(() => db.close());
      const r = await failover({ runs: 6, target: db.url!, leaseMs: 3_000 });
      console.info(`failover: ${JSON.stringify({ ...r, final: undefined })}`);
      expect(r.callsInFlightAtKill).toBeGreaterThan(0);
      expect(r.problems).toEqual([]);
      expect(r.final.byStatus).toEqual({ completed: 6 });
    },
    600_000,
  );
});
