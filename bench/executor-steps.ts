/**
 * Engine overhead per no-op step: runs of K no-op `step.run`s through the in-process transport,
 * measuring for each step the gap between the SDK's answer to one call and the start of the next
 * call (result transaction + wake-up + claim + request build). The SDK's own time is excluded.
 *
 *   npx tsx bench/executor-steps.ts                      # PGlite in memory
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/executor-steps.ts
 */
import { sql } from "drizzle-orm";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { openDb } from "../db/client";
import { migrateDb } from "../db/migrate";
import { createLogger, setLogLevel } from "../lib/log";
import { createExecutor } from "../inngest/executor/executor";
import { inProcessTransport, type ServeHandler } from "../inngest/executor/transport";
import { report } from "./stats";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const STEPS = Number(process.env.BENCH_STEPS ?? 10);

async function main() {
  setLogLevel((process.env.BENCH_LOG as "debug") ?? "silent");
  const url = process.env.BENCH_DATABASE_URL;
  let dbName: string | undefined;
  let handle;
  if (url) {
    dbName = `sluice_bench_${Date.now().toString(36)}`;
    const admin = await openDb({ url, maxConnections: 1 });
    await admin.db.execute(sql.raw(`create database "${dbName}"`));
    await admin.close();
    const u = new URL(url);
    u.pathname = `/${dbName}`;
    handle = await openDb({ url: u.toString() });
  } else handle = await openDb({});
  await migrateDb(handle);

  const bridge: { target?: (r: Request) => Promise<Response> } = {};
  const inngest = new Inngest({
    id: "bench",
    isDev: true,
    baseUrl: "http://executor.bench",
    fetch: ((i: RequestInfo | URL, init?: RequestInit) =>
      bridge.target!(new Request(i, init))) as typeof fetch,
    logger: { info() {}, warn() {}, error() {}, debug() {} },
  });
  const fn = inngest.createFunction(
    { id: "noop", triggers: [{ event: "bench/go" }] },
    async ({ step }) => {
      for (let i = 0; i < STEPS; i++) await step.run(`s${i}`, () => i);
      return "done";
    },
  );
  const executor = createExecutor({
    db: handle,
    appUrls: ["http://app.bench/api/inngest"],
    transport: inProcessTransport(
      serve({ client: inngest, functions: [fn] }) as unknown as ServeHandler,
    ),
    log: createLogger(),
  });
  bridge.target = executor.fetch;
  await executor.start({ syncInBackground: false, cron: false });
  await executor.sync();

  const gaps: number[] = [];
  const sdk: number[] = [];
  const t0 = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const [eventId] = await executor.send({ name: "bench/go", data: {} });
    const [run] = await executor.admin.listExecutions({ eventId });
    const done = await executor.admin.waitForExecution(run!.id, { timeoutMs: 60_000 });
    const calls = done.history.filter((h) => h.type === "step.completed" && h.startedAt);
    for (let i = 1; i < calls.length; i++) {
      const prevEnd = Date.parse(calls[i - 1]!.startedAt!) + (calls[i - 1]!.durationMs ?? 0);
      gaps.push(Date.parse(calls[i]!.startedAt!) - prevEnd);
    }
    for (const c of calls) sdk.push(c.durationMs ?? 0);
  }
  const wall = performance.now() - t0;
  const pct = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
  report(`executor overhead per no-op step (${handle.driver}, in-process)`, {
    runs: RUNS,
    stepsPerRun: STEPS,
    medianMs: pct(gaps, 0.5),
    p90Ms: pct(gaps, 0.9),
    p99Ms: pct(gaps, 0.99),
    sdkCallMedianMs: pct(sdk, 0.5),
    wallPerStepMs: Number((wall / (RUNS * (STEPS + 1))).toFixed(2)),
    targetMs: 5,
  });
  await executor.stop();
  await handle.close();
  if (url && dbName) {
    const admin = await openDb({ url, maxConnections: 1 });
    await admin.db.execute(sql.raw(`drop database if exists "${dbName}" with (force)`));
    await admin.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
