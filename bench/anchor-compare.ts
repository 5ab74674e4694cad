/**
 * Sluice ÷ DBOS Transact on the same workloads, same process, same Postgres server, alternating
 * A B A B per workload so machine drift lands on both sides (issue 14 item 1):
 * - no-op chains of 10, 100 and 1,000 steps (Sluice: `transform` steps; DBOS: `DBOS.runStep`);
 * - 200 three-step runs started at once, time until all completed;
 * - a 20-step chain of `code` steps (DBOS: the same QuickJS worker sandbox; plain JS also timed);
 * - a 20-step chain of `http` GETs against a local stub server (DBOS: `fetch` in a step).
 * Every time is wall clock from the start call to the observed end; a Sluice run is observed by
 * polling its row every 10 ms (h.until), so Sluice times include up to ~10 ms of polling lag.
 * Postgres only (DBOS needs it): BENCH_DATABASE_URL=postgres://…; DBOS gets its own database on that
 * server (bench_dbos, recreated; BENCH_DBOS_DATABASE_URL overrides).
 * Knobs: BENCH_ANCHOR_ROUNDS (3), BENCH_ANCHOR_ROUNDS_1000 (1), BENCH_ANCHOR_BUDGET_1000_S (300:
 * a Sluice 1,000-step run still going then is cancelled and its time is a lower bound — on the
 * 2-core machine one run had done 613 steps after 18 min), BENCH_ANCHOR_BURST (200),
 * BENCH_ANCHOR_WORKLOADS (comma list of chain-10,chain-100,chain-1000,burst,code-20,http-20).
 */
import { eq, inArray } from "drizzle-orm";
import postgres from "postgres";
import { runs, workspaces } from "../db/schema";
import { startRunHarness, type RunHarness } from "../server/testing/run-harness";
import { cancelRun } from "../server/services/runs/cancel-run";
import { allowLocalStub } from "../server/testing/allow-local-stub";
import { sendJson, startHttpServer, type LocalServer } from "../server/testing/local-http";
import { startDbosAnchor, type DbosAnchor } from "./anchors/dbos";
import { median, report, round } from "./stats";

const ROUNDS = Number(process.env.BENCH_ANCHOR_ROUNDS ?? 3);
const ROUNDS_1000 = Number(process.env.BENCH_ANCHOR_ROUNDS_1000 ?? 1);
const BUDGET_1000_MS = Number(process.env.BENCH_ANCHOR_BUDGET_1000_S ?? 300) * 1000;
const BURST = Number(process.env.BENCH_ANCHOR_BURST ?? 200);
const ALL = ["chain-10", "chain-100", "chain-1000", "burst", "code-20", "http-20"] as const;
type Workload = (typeof ALL)[number];
const SELECTED = new Set(
  (process.env.BENCH_ANCHOR_WORKLOADS ?? ALL.join(",")).split(",").map((s) => s.trim()),
);

/** A small pure computation, as a `code` step would typically hold. */
const CODE_SOURCE = `export default function (input) {
  let sum = 0;
  for (let k = 0; k <= input.n; k++) sum += k * k;
  return { n: input.n, sum, label: "step-" + input.n };
}`;

interface Side {
  /** Runs the workload once and returns its wall-clock duration in ms. */
  sluice(): Promise<number>;
  dbos(): Promise<number>;
  /** Extra DBOS variants timed in the same rounds (reported, not in the ratio). */
  extra?: Record<string, () => Promise<number>>;
  rounds: number;
  /** Divides a run's time into a per-step figure (chains). */
  steps?: number;
  warmUp?: boolean;
  /** Sluice runs cut off by their time budget (their times are lower bounds). */
  unfinished?: string[];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function dbosUrl(base: string): string {
  if (process.env.BENCH_DBOS_DATABASE_URL) return process.env.BENCH_DBOS_DATABASE_URL;
  const url = new URL(base);
  url.pathname = "/bench_dbos";
  return url.toString();
}

/** A fresh DBOS system database each invocation, like the fresh database Sluice's harness makes. */
async function recreateDatabase(base: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
  } finally {
    await admin.end();
  }
}

async function main() {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) {
    console.log(
      "anchor-compare: skipped — the DBOS anchor needs Postgres; set BENCH_DATABASE_URL=postgres://…",
    );
    return;
  }
  process.env.SLUICE_TEST_DB = "postgres";
  process.env.TEST_DATABASE_URL = base;

  // 1,000-step chains memoise more steps than the executor's default per-run limit (1,000).
  const e = await startRunHarness("anchor", { executor: { maxStepsPerRun: 5_000 } });
  const dbosDb = dbosUrl(base);
  await recreateDatabase(base, dbosDb);
  let dbos: DbosAnchor | undefined;
  let stub: LocalServer | undefined;
  try {
    dbos = await startDbosAnchor(dbosDb);
    stub = await startHttpServer((_req, res) => sendJson(res, 200, { ok: true, n: 1 }));
    await prepareWorkspace(e);
    const workloads = await defineWorkloads(e, dbos, stub);
    for (const name of ALL) {
      if (!SELECTED.has(name)) continue;
      try {
        await compare(name, workloads[name]);
      } catch (err) {
        // Keep the other workloads' numbers when one side breaks (e.g. executor work in progress).
        console.error(`anchor ${name} failed:`, err);
        report(`anchor ${name}`, { workload: name, error: String(err) });
      }
    }
  } finally {
    await stub?.close();
    await dbos?.close();
    await e.close();
  }
}

async function prepareWorkspace(e: RunHarness) {
  await e.db.db
    .update(workspaces)
    .set({ settings: { maxActiveRunsPerUser: 100_000, maxActiveRunsPerWorkspace: 100_000 } })
    .where(eq(workspaces.id, e.ws.workspaceId));
  await allowLocalStub(e.ws);
}

async function defineWorkloads(
  e: RunHarness,
  dbos: DbosAnchor,
  stub: LocalServer,
): Promise<Record<Workload, Side>> {
  const chainOf = (name: string, steps: Record<string, unknown>[]) =>
    e.workflow({ schemaVersion: 1, name, constraints: { maxSteps: 1000 }, steps });
  const noop = (n: number) =>
    chainOf(
      `Chain ${n}`,
      Array.from({ length: n }, (_, i) => ({
        id: `s${i}`,
        type: "transform",
        config: { value: i },
      })),
    );
  const runOnce = async (workflowId: string, timeoutMs: number) =>
    timed(async () => {
      const done = await e.waitFor(await e.start(workflowId), ["completed", "failed"], {
        timeoutMs,
      });
      if (done.status !== "completed")
        throw new Error(`Sluice run ${done.status}: ${JSON.stringify(done.error)}`);
    });
  /**
   * A run that may not finish within `budgetMs` (the 1,000-step chain replays its whole memo on
   * every step): past the budget it is cancelled, so it stops using the CPU, and its time counts
   * as a lower bound, with the steps it completed noted.
   */
  const runWithBudget = async (workflowId: string, budgetMs: number, unfinished: string[]) => {
    const t0 = performance.now();
    const runId = await e.start(workflowId);
    try {
      await e.waitFor(runId, ["completed"], { timeoutMs: budgetMs });
      return performance.now() - t0;
    } catch {
      const ms = performance.now() - t0;
      await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId, reason: "bench budget" } });
      await e.waitFor(runId, ["cancelled", "failed", "completed"], { timeoutMs: 600_000 });
      const done = (await e.steps(runId)).filter((s) => s.status === "completed").length;
      unfinished.push(`> ${Math.round(ms)} ms: ${done} steps completed, then cancelled`);
      return ms;
    }
  };
  const chain = async (n: number, rounds: number): Promise<Side> => {
    const wf = await noop(n);
    const unfinished: string[] = [];
    return {
      sluice: () =>
        n < 1000 ? runOnce(wf, 600_000) : runWithBudget(wf, BUDGET_1000_MS, unfinished),
      dbos: () => timed(() => dbos.noopChain(n)),
      rounds,
      steps: n,
      warmUp: n < 1000,
      unfinished,
    };
  };

  const three = await e.workflow({
    schemaVersion: 1,
    name: "Three",
    constraints: { maxConcurrentRuns: 1000 },
    steps: ["a", "b", "c"].map((id, i) => ({ id, type: "transform", config: { value: i + 1 } })),
  });
  const code = await chainOf(
    "Code 20",
    Array.from({ length: 20 }, (_, i) => ({
      id: `c${i}`,
      type: "code",
      config: { source: CODE_SOURCE, input: { n: i } },
    })),
  );
  const url = `${stub.origin}/ok`;
  const http = await chainOf(
    "HTTP 20",
    Array.from({ length: 20 }, (_, i) => ({
      id: `h${i}`,
      type: "http",
      config: { method: "GET", url },
    })),
  );

  return {
    "chain-10": await chain(10, ROUNDS),
    "chain-100": await chain(100, ROUNDS),
    "chain-1000": await chain(1000, ROUNDS_1000),
    burst: {
      sluice: () =>
        timed(async () => {
          const ids = await Promise.all(Array.from({ length: BURST }, () => e.start(three)));
          await e.h.until(
            async () => {
              const rows = await e.db.db
                .select({ status: runs.status })
                .from(runs)
                .where(inArray(runs.id, ids));
              const bad = rows.find((r) => r.status === "failed" || r.status === "cancelled");
              if (bad) throw new Error(`a Sluice burst run ${bad.status}`);
              return rows.filter((r) => r.status === "completed").length === ids.length;
            },
            "all burst runs",
            900_000,
          );
        }),
      dbos: () => timed(() => dbos.threeStepBurst(BURST)),
      rounds: ROUNDS,
      warmUp: false,
    },
    "code-20": {
      sluice: () => runOnce(code, 600_000),
      dbos: () => timed(() => dbos.codeChain(20, CODE_SOURCE, "quickjs")),
      extra: { dbosPlainJs: () => timed(() => dbos.codeChain(20, CODE_SOURCE, "plain")) },
      rounds: ROUNDS,
      steps: 20,
      warmUp: true,
    },
    "http-20": {
      sluice: () => runOnce(http, 600_000),
      dbos: () => timed(() => dbos.httpChain(20, url)),
      rounds: ROUNDS,
      steps: 20,
      warmUp: true,
    },
  };
}

async function compare(name: Workload, side: Side) {
  if (side.warmUp) {
    await side.sluice();
    await side.dbos();
    for (const fn of Object.values(side.extra ?? {})) await fn();
  }
  const sluice: number[] = [];
  const dbos: number[] = [];
  const extra: Record<string, number[]> = {};
  for (let r = 0; r < side.rounds; r++) {
    sluice.push(await side.sluice());
    dbos.push(await side.dbos());
    for (const [k, fn] of Object.entries(side.extra ?? {})) (extra[k] ??= []).push(await fn());
    console.error(
      `anchor ${name} round ${r + 1}/${side.rounds}: Sluice ${round(sluice.at(-1)!)} ms, DBOS ${round(dbos.at(-1)!)} ms`,
    );
  }
  const s = median(sluice);
  const d = median(dbos);
  const perStep = side.steps
    ? { sluicePerStepMs: round(s / side.steps), dbosPerStepMs: round(d / side.steps) }
    : {
        sluiceRunsPerSecond: round(BURST / (s / 1000)),
        dbosRunsPerSecond: round(BURST / (d / 1000)),
      };
  const lowerBound = (side.unfinished?.length ?? 0) > 0;
  report(`anchor ${name} (postgres, Sluice ÷ DBOS)`, {
    workload: name,
    rounds: side.rounds,
    ...(lowerBound ? { sluiceIsLowerBound: true, sluiceUnfinished: side.unfinished } : {}),
    ...(side.steps ? { steps: side.steps } : { runs: BURST }),
    sluiceMedianMs: round(s),
    dbosMedianMs: round(d),
    ratio: round(s / d, 1),
    // Each round's two runs are neighbours in time, so their ratio cancels slow machine drift.
    pairedRatioMedian: round(median(sluice.map((v, i) => v / dbos[i]!)), 1),
    ...perStep,
    sluiceMs: sluice.map((v) => round(v, 0)),
    dbosMs: dbos.map((v) => round(v, 0)),
    ...Object.fromEntries(
      Object.entries(extra).map(([k, v]) => [`${k}MedianMs`, round(median(v))]),
    ),
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
