/**
 * The Sluice engine end to end (service → outbox → embedded executor → SDK → engine → database):
 * - per-step cost: a run of N (default 100) chained no-op `transform` steps, (run duration / N), median of runs;
 * - throughput: M runs of a 3-step workflow started at once, runs completed per second, and the
 *   process's peak RSS meanwhile (the whole stack runs in this one process, as in the app).
 * PGlite in memory by default; BENCH_DATABASE_URL=postgres://… for a real Postgres.
 *   npm run bench
 */
import { eq, inArray, sql } from "drizzle-orm";
import { setQueryProbe, type Db } from "../db/client";
import { runs } from "../db/schema";
import { startRunHarness } from "../server/testing/run-harness";
import { sendJson, startHttpServer } from "../server/testing/local-http";
import { allowLocalStub } from "../server/testing/allow-local-stub";
import { median, percentile, report, round } from "./stats";

const CHAIN = Number(process.env.BENCH_CHAIN ?? 100);
const CHAIN_RUNS = Number(process.env.BENCH_CHAIN_RUNS ?? 5);
const THROUGHPUT_RUNS = Number(process.env.BENCH_THROUGHPUT_RUNS ?? 200);

async function main() {
  if (process.env.BENCH_DATABASE_URL) {
    process.env.SLUICE_TEST_DB = "postgres";
    process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  }
  const driver = process.env.BENCH_DATABASE_URL ? "postgres" : "pglite";
  // Statements by kind (begin/commit included), counted by the client; only during the burst.
  const statements: Record<string, number> = {};
  let counting = false;
  // Transactions per connection: a statement outside begin … commit is one autocommit.
  const inTx = new Set<number>();
  if (driver === "postgres")
    setQueryProbe((text, conn) => {
      const kind = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? "other";
      const autocommit =
        kind !== "begin" && kind !== "commit" && kind !== "rollback" && !inTx.has(conn);
      if (kind === "begin") inTx.add(conn);
      else if (kind === "commit" || kind === "rollback") inTx.delete(conn);
      if (!counting) return;
      // BENCH_TRACE=1: every counted statement, one line each (what a run's work is made of).
      if (process.env.BENCH_TRACE)
        console.log(
          `SQL ${Math.round(performance.now())} ${conn} ${text.replace(/\s+/g, " ").slice(0, 220)}`,
        );
      statements[kind] = (statements[kind] ?? 0) + 1;
      if (autocommit) statements.autocommit = (statements.autocommit ?? 0) + 1;
      // The executor's job claims (one autocommit each): a wake-up's or a timed poll's, so their
      // number grows with wall time on a loaded machine; reported apart as well.
      if (/^\s*with picked as/.test(text)) statements.jobClaims = (statements.jobClaims ?? 0) + 1;
    });
  if (process.env.BENCH_MODE === "sequential")
    return sequential(driver, statements, (on) => {
      counting = on;
    });
  const e = await startRunHarness("bench");
  // The largest limits Settings accept (larger values fail validation and fall back to the
  // defaults, 5 per user: the burst then ran five at a time).
  await e.db.db
    .update((await import("../db/schema")).workspaces)
    .set({ settings: { maxActiveRunsPerUser: 1000, maxActiveRunsPerWorkspace: 10_000 } })
    .where(eq((await import("../db/schema")).workspaces.id, e.ws.workspaceId));
  try {
    const chain = await e.workflow({
      schemaVersion: 1,
      name: "Chain",
      constraints: { maxSteps: 1000 },
      steps: Array.from({ length: CHAIN }, (_, i) => ({
        id: `s${i}`,
        type: "transform",
        config: { value: i },
      })),
    });
    const perStep: number[] = [];
    for (let r = 0; r < CHAIN_RUNS + 1; r++) {
      const runId = await e.start(chain);
      const done = await e.waitFor(runId, ["completed", "failed"], { timeoutMs: 120_000 });
      if (done.status !== "completed") throw new Error(`chain run ${done.status}`);
      if (r === 0) continue; // warm-up
      perStep.push((done.finishedAt!.getTime() - done.startedAt!.getTime()) / CHAIN);
    }
    report(`engine per no-op step (${driver}, in-process)`, {
      steps: CHAIN,
      runs: CHAIN_RUNS,
      medianMs: round(median(perStep)),
      p95Ms: round(percentile(perStep, 95)),
      targetMs: 5,
    });

    const three = await e.workflow({
      schemaVersion: 1,
      name: "Three",
      constraints: { maxConcurrentRuns: 1000 },
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
        { id: "c", type: "transform", config: { value: 3 } },
      ],
    });
    const before = driver === "postgres" ? await dbCounters(e.db.db) : undefined;
    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
    const t0 = performance.now();
    counting = true;
    let polls = 0;
    const ids = await Promise.all(Array.from({ length: THROUGHPUT_RUNS }, () => e.start(three)));
    await e.h.until(
      async () => {
        polls++;
        const rows = await e.db.db
          .select({ status: runs.status })
          .from(runs)
          .where(inArray(runs.id, ids));
        return rows.filter((r) => r.status === "completed").length === ids.length;
      },
      "all runs",
      600_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    counting = false;
    clearInterval(sampler);
    report(`three-step runs per second (${driver}, in-process)`, {
      runs: THROUGHPUT_RUNS,
      seconds: round(seconds),
      runsPerSecond: round(THROUGHPUT_RUNS / seconds),
      target: 100,
      peakRssMb: round(peakRss / 2 ** 20),
      rssTargetMb: 500,
    });
    if (before) {
      // The server flushes a backend's statistics at most once a second.
      await new Promise((r) => setTimeout(r, 1_500));
      const after = await dbCounters(e.db.db);
      // Idle background work (the relay's and the executor's polls, every 50 ms here) grows with
      // the burst's duration: measured for a few seconds with nothing to do, then subtracted.
      const idleStatements: Record<string, number> = {};
      const countIdle = (text: string) => {
        const kind = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? "other";
        idleStatements[kind] = (idleStatements[kind] ?? 0) + 1;
      };
      setQueryProbe(countIdle);
      const idleMs = 4_000;
      const idle0 = await dbCounters(e.db.db);
      await new Promise((r) => setTimeout(r, idleMs));
      await new Promise((r) => setTimeout(r, 1_500));
      const idle1 = await dbCounters(e.db.db);
      const idleCommitsPerSecond = (idle1.commits - idle0.commits - 2) / ((idleMs + 1_500) / 1000);
      const idleStatementsPerSecond =
        Object.values(idleStatements).reduce((a, b) => a + b, 0) / ((idleMs + 1_500) / 1000);
      const per = (a: number, b: number) => round((a - b) / THROUGHPUT_RUNS, 1);
      const tables = Object.keys(after.tables)
        .map((t) => {
          const [a, b] = [after.tables[t]!, before.tables[t] ?? [0, 0, 0, 0]];
          return [t, a.map((v, i) => per(v, b[i]!))] as const;
        })
        .filter(([, v]) => v.some((x) => x > 0))
        .sort((x, y) => y[1].reduce((p, q) => p + q) - x[1].reduce((p, q) => p + q));
      // The bench's own completion polls are one autocommitted select each: left out below.
      statements.select = (statements.select ?? 0) - polls;
      statements.autocommit = (statements.autocommit ?? 0) - polls;
      const { autocommit = 0, jobClaims = 0, ...byKind } = statements;
      const total = Object.values(byKind).reduce((a, b) => a + b, 0);
      report(`database work per three-step run (postgres)`, {
        runs: THROUGHPUT_RUNS,
        commits: per(after.commits, before.commits),
        commitsWithoutPolls: per(after.commits - polls, before.commits),
        commitsWithoutPollsOrIdle: per(
          after.commits - polls - idleCommitsPerSecond * (seconds + 1.5),
          before.commits,
        ),
        statements: per(total, 0),
        statementsWithoutIdle: per(total - idleStatementsPerSecond * seconds, 0),
        idlePerSecond: {
          commits: round(idleCommitsPerSecond),
          statements: round(idleStatementsPerSecond),
        },
        clientCommits: per((statements.commit ?? 0) + autocommit, 0),
        jobClaims: per(jobClaims, 0),
        statementsByKind: Object.fromEntries(
          Object.entries(byKind).map(([k, v]) => [k, per(v, 0)]),
        ),
        rowsWritten: per(after.written, before.written),
        // table: [index + sequential scans, inserted, updated, deleted] per run
        tables: Object.fromEntries(tables),
      });
    }
  } finally {
    await e.close();
  }
}

/**
 * Database work per three-step run, runs one after another (BENCH_MODE=sequential, Postgres): no
 * batching across runs, and background polls every 60 s instead of 50 ms (wake-ups on commit still run), so what is counted is
 * (nearly) only the runs' own work: pg_stat commits and the client's statements, minus this
 * script's completion polls.
 */
async function sequential(
  driver: string,
  statements: Record<string, number>,
  setCounting: (on: boolean) => void,
) {
  const runsN = Number(process.env.BENCH_SEQUENTIAL_RUNS ?? 30);
  const e = await startRunHarness("benchseq", {
    executor: { pollIntervalMs: 60_000 },
    relayPollMs: 60_000,
  });
  // BENCH_SEQ_WORKLOAD=http-20: 20 chained `http` GETs to a local stub instead (anchor-compare's
  // http-20), counted per run; the per-step figure is the count ÷ 20.
  const httpSteps = process.env.BENCH_SEQ_WORKLOAD === "http-20" ? 20 : 0;
  const stub = httpSteps
    ? await startHttpServer((_req, res) => sendJson(res, 200, { ok: true, n: 1 }))
    : undefined;
  try {
    if (stub) await allowLocalStub(e.ws);
    const three = await e.workflow({
      schemaVersion: 1,
      name: stub ? "HTTP 20" : "Three",
      ...(stub ? { constraints: { maxSteps: 1000 } } : {}),
      steps: stub
        ? Array.from({ length: httpSteps }, (_, i) => ({
            id: `h${i}`,
            type: "http",
            config: { method: "GET", url: `${stub.origin}/ok` },
          }))
        : [
            { id: "a", type: "transform", config: { value: 1 } },
            { id: "b", type: "transform", config: { value: 2 } },
            { id: "c", type: "transform", config: { value: 3 } },
          ],
    });
    let polls = 0;
    const one = async () => {
      const id = await e.start(three);
      await e.h.until(
        async () => {
          polls++;
          const [r] = await e.db.db
            .select({ status: runs.status })
            .from(runs)
            .where(eq(runs.id, id));
          return r?.status === "completed";
        },
        "run",
        60_000,
      );
    };
    for (let i = 0; i < 3; i++) await one(); // warm-up
    await new Promise((r) => setTimeout(r, 11_000));
    const before = await dbCounters(e.db.db);
    polls = 0;
    setCounting(true);
    const t0 = performance.now();
    for (let i = 0; i < runsN; i++) await one();
    const seconds = (performance.now() - t0) / 1000;
    setCounting(false);
    // An idle backend flushes its statistics only after 10 s (PostgreSQL 15).
    await new Promise((r) => setTimeout(r, 11_000));
    const after = await dbCounters(e.db.db);
    const per = (a: number, b: number) => round((a - b) / runsN, 1);
    statements.select = (statements.select ?? 0) - polls;
    statements.autocommit = (statements.autocommit ?? 0) - polls;
    const { autocommit = 0, jobClaims = 0, ...byKind } = statements;
    const total = Object.values(byKind).reduce((a, b) => a + b, 0);
    const tables = Object.keys(after.tables)
      .map((t) => {
        const [a, b] = [after.tables[t]!, before.tables[t] ?? [0, 0, 0, 0]];
        return [t, a.map((v, i) => per(v, b[i]!))] as const;
      })
      .filter(([, v]) => v.some((x) => x > 0))
      .sort((x, y) => y[1].reduce((p, q) => p + q) - x[1].reduce((p, q) => p + q));
    report(
      `database work per ${stub ? "20-http-step" : "three-step"} run, one at a time (${driver})`,
      {
        runs: runsN,
        ...(stub ? { requestsServed: stub.requests.length } : {}),
        msPerRun: round((seconds * 1000) / runsN),
        // Counted by the client: transactions committed (begin … commit, plus autocommitted
        // statements), this script's polls left out. pg_stat's count lags (an idle backend
        // flushes its statistics only every 10 s), so it is shown apart.
        commits: per((statements.commit ?? 0) + autocommit, 0),
        pgStatCommits: per(after.commits - polls - 2, before.commits),
        statements: per(total, 0),
        jobClaims: per(jobClaims, 0),
        commitsWithoutClaims: per((statements.commit ?? 0) + autocommit - jobClaims, 0),
        statementsWithoutClaims: per(total - jobClaims, 0),
        statementsByKind: Object.fromEntries(
          Object.entries(byKind).map(([k, v]) => [k, per(v, 0)]),
        ),
        rowsWritten: per(after.written, before.written),
        tables: Object.fromEntries(tables),
      },
    );
  } finally {
    await e.close();
    await stub?.close();
  }
}

/** pg_stat counters of the current database: commits, rows written, and per table. */
async function dbCounters(db: Db) {
  const [d] = (await db.execute(sql`
    select xact_commit::int as commits, (tup_inserted + tup_updated + tup_deleted)::int as written
    from pg_stat_database where datname = current_database()`)) as unknown as {
    commits: number;
    written: number;
  }[];
  const rows = (await db.execute(sql`
    select relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int as scans,
           n_tup_ins::int as ins, n_tup_upd::int as upd, n_tup_del::int as del
    from pg_stat_user_tables`)) as unknown as {
    relname: string;
    scans: number;
    ins: number;
    upd: number;
    del: number;
  }[];
  return {
    commits: d!.commits,
    written: d!.written,
    tables: Object.fromEntries(rows.map((r) => [r.relname, [r.scans, r.ins, r.upd, r.del]])),
  };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
