/**
 * The same workloads on the three engines, side by side in one invocation (issue 24 item 8):
 * the embedded executor, `inngest dev` and signed `inngest start` (Postgres + Redis), each in its
 * own child process (the app's Inngest client is configured when first loaded), one after the
 * other, alternating rounds. Per engine:
 * - per-step time: a chain of 20 `http` steps to a local stub (ms per step, median of runs);
 * - three-step runs per second: 100 runs (transform → http → transform) started at once;
 * - fan-out latency: 30 runs, one at a time, of 4 parallel `http` branches + a join (p50/p99).
 * App database: BENCH_DATABASE_URL (Postgres) or PGlite. Needs ../shared/tools/inngest.
 *   bash bench/build.sh bench/engines-compare.ts && node bench/results/.build/engines-compare.cjs
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import { median, percentile, report, round } from "./stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ALL_KINDS = ["embedded", "dev", "start"] as const;
type Kind = (typeof ALL_KINDS)[number];
/** BENCH_ENGINES=embedded (comma-separated) limits the engines. */
const KINDS = (process.env.BENCH_ENGINES?.split(",") as Kind[] | undefined) ?? [...ALL_KINDS];
type Result = { stepMs: number; runsPerSec: number; fanP50: number; fanP99: number };

async function child(kind: Kind): Promise<Result> {
  if (process.env.BENCH_DATABASE_URL) {
    process.env.SLUICE_TEST_DB = "postgres";
    process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  }
  const { prepareEngine } = await import("../inngest/conformance/engines");
  const prepared = prepareEngine(kind, {
    app: 8580,
    server: { base: 8581, grpc: 50581 },
    redisDb: 7,
  });
  if (prepared.skip) throw new Error(prepared.skip);
  const { setLogLevel } = await import("../lib/log");
  setLogLevel("silent");
  const { openWorkspace, startCountingStub, countStep, fanOutDefinition } =
    await import("../inngest/conformance/fixtures");
  const e = await prepared.start(`bench${kind}`);
  const stub = await startCountingStub();
  const vars = { stub: stub.origin };
  try {
    await openWorkspace(e);
    const done = ["completed", "failed", "cancelled", "timed_out"];
    const runOnce = async (wf: string) => {
      const t0 = performance.now();
      const r = await e.waitFor(await e.start(wf), done, { timeoutMs: 120_000 });
      if (r.status !== "completed") throw new Error(`${kind}: run ${r.id} ${r.status}`);
      return performance.now() - t0;
    };
    // Per-step: 20 chained http steps.
    const chain = await e.workflow({
      schemaVersion: 1,
      name: "Chain",
      variables: vars,
      steps: Array.from({ length: 20 }, (_, i) => countStep(`s${i}`, `chain-${i}`)),
    });
    await runOnce(chain); // warm-up
    const per: number[] = [];
    for (let i = 0; i < 3; i++) per.push((await runOnce(chain)) / 20);
    // Throughput: 100 three-step runs at once.
    const three = await e.workflow({
      schemaVersion: 1,
      name: "Three",
      variables: vars,
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        countStep("b", "three-b"),
        { id: "c", type: "transform", config: { value: 2 } },
      ],
    });
    await runOnce(three);
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await e.start(three));
    for (const id of ids) await e.waitFor(id, done, { timeoutMs: 300_000 });
    const runsPerSec = 100 / ((performance.now() - t0) / 1000);
    // Fan-out latency.
    const fan = await e.workflow({ ...fanOutDefinition("Fan", 4, "fan"), variables: vars });
    await runOnce(fan);
    const lat: number[] = [];
    for (let i = 0; i < 30; i++) lat.push(await runOnce(fan));
    return {
      stepMs: round(median(per)),
      runsPerSec: round(runsPerSec, 1),
      fanP50: round(median(lat), 1),
      fanP99: round(percentile(lat, 99), 1),
    };
  } finally {
    await stub.close();
    await e.close();
  }
}

async function main() {
  const kind = process.argv[2] as Kind | undefined;
  if (kind) {
    const r = await child(kind);
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
    process.exit(0);
  }
  const results = Object.fromEntries(KINDS.map((k) => [k, [] as Result[]])) as Record<
    Kind,
    Result[]
  >;
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    for (const k of KINDS) {
      const out = spawnSync(process.execPath, [process.argv[1]!, k], {
        encoding: "utf8",
        env: process.env,
        timeout: 900_000,
      });
      const line = out.stdout.split("\n").find((l) => l.startsWith("RESULT "));
      if (!line) throw new Error(`${k} failed:\n${out.stdout}\n${out.stderr}`);
      results[k].push(JSON.parse(line.slice(7)) as Result);
    }
  }
  const load = os.loadavg().map((l) => round(l, 2));
  for (const k of KINDS) {
    const rs = results[k];
    report("engines-compare", {
      engine: k,
      database: process.env.BENCH_DATABASE_URL ? "postgres" : "pglite",
      rounds: rs.length,
      httpStepMs: median(rs.map((r) => r.stepMs)),
      threeStepRunsPerSec: median(rs.map((r) => r.runsPerSec)),
      fanOutP50Ms: median(rs.map((r) => r.fanP50)),
      fanOutP99Ms: median(rs.map((r) => r.fanP99)),
      load,
      cpus: os.cpus().length,
    });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
