/**
 * Reliability suite (a) and (b) at full scale (inngest/run-driver/reliability.test.ts runs them
 * smaller): kill -9 during 100 runs with parallel branches, delays, approvals and http calls,
 * then a restart; and a private Postgres cluster stopped and started mid-run while webhook
 * deliveries arrive. Prints counts, durations and the load average; exits 1 on any problem.
 * PGlite by default for (a); BENCH_DATABASE_URL=postgres://… runs (a) on a fresh database there.
 * (b) always uses its own throwaway cluster (skipped without initdb).
 *   bash bench/build.sh bench/reliability.ts | xargs node   (run from the repository root)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestDb } from "../db/testing";
import { DEFAULT_LEASE_MS } from "../inngest/executor/options";
import {
  failover,
  killNine,
  postgresBinaries,
  postgresRestart,
} from "../inngest/run-driver/test-fixtures/reliability-scenarios";
import { report, round } from "./stats";

const RUNS = Number(process.env.BENCH_RELIABILITY_RUNS ?? 100);
/** BENCH_RELIABILITY_ONLY=a|b|c runs one scenario. */
const ONLY = process.env.BENCH_RELIABILITY_ONLY;
const load = () => os.loadavg().map((l) => round(l, 1));

/** (a): kill -9 mid-run and a restart; true when nothing was lost or doubled. */
async function scenarioA(pg: string | undefined): Promise<boolean> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-kill9-"));
  const db = pg ? await createTestDb("benchkill9") : undefined;
  try {
    const loadBefore = load();
    const a = await killNine({ runs: RUNS, target: db?.url ?? path.join(dir, "pglite") });
    report(`kill -9 mid-run, restart (${pg ? "postgres" : "pglite"})`, {
      runs: a.runs,
      atKill: {
        waiting: a.atKill.byStatus.waiting ?? 0,
        running: a.atKill.byStatus.running ?? 0,
        pendingApprovals: a.atKill.pendingApprovals,
        stepRows: a.atKill.stepRows,
      },
      completed: a.final.byStatus.completed ?? 0,
      runsWithEveryStepOnce: a.final.runsWithEveryStepOnce,
      duplicatedResults: a.final.duplicatedResults,
      httpCalls: a.calls.requests,
      runsCalled: a.calls.runsCalled,
      secondsToKill: round(a.msToKill / 1000, 1),
      secondsToRecover: round(a.msToRecover / 1000, 1),
      loadBefore,
      loadAfter: load(),
      problems: a.problems,
    });
    return a.problems.length === 0;
  } finally {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** (c): two instances on Postgres, one killed for good; true when the survivor finished all. */
async function scenarioC(pg: string | undefined): Promise<boolean> {
  const name = "one of two instances killed (postgres, production lease)";
  if (!pg) {
    report(name, { skipped: "needs BENCH_DATABASE_URL (PGlite has one opener per folder)" });
    return true;
  }
  const db = await createTestDb("benchfailover");
  try {
    const loadBefore = load();
    const c = await failover({ runs: RUNS, target: db.url!, leaseMs: DEFAULT_LEASE_MS });
    report(name, {
      runs: c.runs,
      leaseSeconds: c.leaseMs / 1000,
      callsInFlightAtKill: c.callsInFlightAtKill,
      secondsToFailover: round(c.msToFailover / 1000, 1),
      completed: c.final.byStatus.completed ?? 0,
      duplicatedResults: c.final.duplicatedResults,
      loadBefore,
      loadAfter: load(),
      problems: c.problems,
    });
    return c.problems.length === 0;
  } finally {
    await db.close();
  }
}

async function main() {
  let failed = false;
  const pg = process.env.BENCH_DATABASE_URL;
  if (pg) {
    process.env.SLUICE_TEST_DB = "postgres";
    process.env.TEST_DATABASE_URL = pg;
  }
  if (!ONLY || ONLY === "a") await scenarioA(pg).then((ok) => (failed ||= !ok));
  if (!ONLY || ONLY === "c") await scenarioC(pg).then((ok) => (failed ||= !ok));
  if (ONLY === "a" || ONLY === "c") process.exit(failed ? 1 : 0);
  if (!postgresBinaries()) {
    report("postgres restart mid-run", { skipped: "no initdb under /usr/lib/postgresql/*/bin" });
  } else {
    const loadBefore = load();
    const b = await postgresRestart({ runs: RUNS });
    report("postgres stop -m fast + start mid-run (private cluster)", {
      runs: b.runs,
      deliveriesSent: b.deliveriesSent,
      sentDuringOutage: b.sentDuringOutage,
      deliveriesAccepted: b.deliveriesAccepted,
      deliveryAttemptsRefused: b.deliveryFailures,
      webhookRuns: b.final.webhookRuns,
      completed: b.final.byStatus.completed ?? 0,
      totalRuns: b.final.runs,
      duplicatedResults: b.final.duplicatedResults,
      secondsDown: round(b.msDown / 1000, 1),
      secondsToRecover: round(b.msToRecover / 1000, 1),
      loadBefore,
      loadAfter: load(),
      problems: b.problems,
    });
    failed ||= b.problems.length > 0;
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
