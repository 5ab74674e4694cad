/**
 * Webhook accept latency (SPEC §10: p99 ≤ 25 ms at 500 req/s on 2 cores): the real receiver
 * (`/api/hooks/<path>` adapter → signature check → mapping → one inbox insert) behind a node:http
 * server, driven open-loop at a fixed rate by a worker thread with keep-alive connections, while
 * the webhook admitter turns the inbox into runs in the same process (no executor is running —
 * this measures accepting, not executing: with the default limits the first runs are admitted and
 * the rest wait in the FIFO queue, as during a real burst). Every request is a correctly signed
 * delivery; every 10th (BENCH_DUPLICATE_EVERY) repeats an earlier body, which body-hash
 * idempotency must answer with the first run. After the rounds the admitter is drained and every
 * answered run id is checked: created exactly once, none lost, none doubled.
 *   npm run bench                       # PGlite in memory
 *   BENCH_DATABASE_URL=postgres://… …   # a real Postgres
 *   BENCH_SECONDS=60 BENCH_ROUNDS=1 …   # the sustained number
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import { Worker } from "node:worker_threads";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import { setProcessDb } from "../db";
import { openDb, setQueryProbe, type DbHandle } from "../db/client";
import { migrateDb } from "../db/migrate";
import { setLogLevel } from "../lib/log";
import { runs } from "../db/schema";
import { handleWebhook } from "../server/http/hooks";
import { getRuntime } from "../server/runtime";
import {
  admitterYieldRatio,
  startWebhookAdmitter,
} from "../server/services/triggers/webhook-admitter";
import { createTrigger } from "../server/services/triggers/create-trigger";
import { createWorkflow } from "../server/services/workflows/create-workflow";
import { createWorkspaceFixture } from "../server/testing/harness";
import { median, percentile, report, round } from "./stats";

const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DUPLICATE_EVERY = Number(process.env.BENCH_DUPLICATE_EVERY ?? 10);
/** 1: start the admitter only after the rounds (accept alone, then how fast the backlog drains). */
const ADMIT_AFTER = process.env.BENCH_ADMIT_AFTER === "1";

const LOADER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const { port, path, requests, rate } = workerData;
const latencies = []; const statuses = {}; const answers = []; let done = 0;
const start = performance.now();
const finish = () => { if (++done === requests.length) parentPort.postMessage({ latencies, statuses, answers, seconds: (performance.now() - start) / 1000 }); };
requests.forEach((r, i) => {
  const at = start + (i * 1000) / rate;
  setTimeout(function fire() {
    const t0 = performance.now();
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent,
      headers: { "content-type": "application/json", "x-signature": r.sig, "content-length": Buffer.byteLength(r.body) } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        latencies.push(performance.now() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
        let runId = null;
        try { runId = JSON.parse(Buffer.concat(chunks).toString()).runId ?? null; } catch (e) { statuses.unparsable = (statuses.unparsable || 0) + 1; }
        answers.push({ body: r.body, status: res.statusCode, runId });
        finish();
      });
    });
    req.on("error", () => { statuses.error = (statuses.error || 0) + 1; finish(); });
    req.end(r.body);
  }, Math.max(0, at - performance.now()));
});
`;

async function open(): Promise<{ handle: DbHandle; drop?: () => Promise<void>; driver: string }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) return { handle: await openDb({}), driver: "pglite" };
  const name = `sluice_bench_${Date.now().toString(36)}`;
  const admin = await openDb({ url, maxConnections: 1 });
  await admin.db.execute(sql.raw(`create database "${name}"`));
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    handle: await openDb({ url: u.toString(), maxConnections: 10 }),
    driver: "postgres",
    drop: async () => {
      await admin.db.execute(sql.raw(`drop database if exists "${name}" with (force)`));
      await admin.close();
    },
  };
}

async function main() {
  setLogLevel("silent");
  // Statements sent (Postgres only): per request over the rounds, per run over the drain.
  let statements = 0;
  const byText = new Map<string, number>();
  setQueryProbe((text) => {
    statements++;
    if (process.env.BENCH_STATEMENTS === "1") byText.set(text, (byText.get(text) ?? 0) + 1);
  });
  const { handle, drop, driver } = await open();
  await migrateDb(handle);
  setProcessDb(handle);
  const fx = await createWorkspaceFixture(handle.db, "Bench");
  const wf = await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Hooked" } });
  const created = await createTrigger({
    ctx: fx.ctx("editor"),
    input: {
      kind: "webhook",
      workflowId: wf.id,
      name: "Bench",
      config: { rateLimit: { perMinute: 60_000, burst: 10_000 }, idempotency: "body_hash" },
    },
  });
  const secret = created.secret!;
  // The same pacing as the app (server/boot.ts): the admitter yields more on PGlite's one connection.
  const startAdmitter = () =>
    startWebhookAdmitter({
      db: handle.db,
      ...getRuntime(),
      yieldRatio: admitterYieldRatio(handle.driver),
    });
  let admitter = ADMIT_AFTER ? null : startAdmitter();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: body.length ? body : undefined,
    });
    const path = req
      .url!.split("?")[0]!
      .replace(/^\/api\/hooks\//, "")
      .split("/");
    const answer = await handleWebhook(request, { params: Promise.resolve({ path }) });
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;

  let serial = 0;
  const sign = (body: string) => ({
    body,
    sig: `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  });
  // Every DUPLICATE_EVERY-th request repeats the body sent ~50 requests earlier (body_hash key).
  const requestsFor = (n: number) => {
    const list: { body: string; sig: string }[] = [];
    for (let i = 0; i < n; i++) {
      if (DUPLICATE_EVERY > 0 && i % DUPLICATE_EVERY === DUPLICATE_EVERY - 1 && i >= 50)
        list.push(list[i - 50]!);
      else
        list.push(sign(JSON.stringify({ order: { id: `o-${++serial}`, total: serial % 1000 } })));
    }
    return list;
  };
  const answered = new Map<string, Set<string>>(); // body → run ids answered for it
  const round1 = async (rate: number, seconds: number) => {
    const worker = new Worker(LOADER, {
      eval: true,
      workerData: {
        port,
        path: `/api/hooks/${created.trigger.path}`,
        requests: requestsFor(rate * seconds),
        rate,
      },
    });
    const result = await new Promise<{
      latencies: number[];
      statuses: Record<string, number>;
      answers: { body: string; status: number; runId: string | null }[];
      seconds: number;
    }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    for (const a of result.answers) {
      if (a.status !== 202 && a.status !== 200) continue;
      const ids = answered.get(a.body) ?? new Set<string>();
      answered.set(a.body, ids.add(String(a.runId)));
    }
    return result;
  };
  await round1(100, 2); // warm-up
  // Where a tail comes from: event-loop stalls of this process (the receiver and the admitter
  // share it) and GC pauses, measured over the rounds only.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  const gc = { minorMs: 0, majorMs: 0, maxMs: 0, count: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === 4 /* major (mark-compact) */) gc.majorMs += e.duration;
      else gc.minorMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
      gc.count++;
    }
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  loopDelay.enable();
  const cpuBefore = process.cpuUsage();
  const statementsBefore = statements;
  const p50s: number[] = [];
  const p99s: number[] = [];
  const achieved: number[] = [];
  let statuses: Record<string, number> = {};
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round1(RATE, SECONDS);
    p50s.push(median(r.latencies));
    p99s.push(percentile(r.latencies, 99));
    achieved.push((RATE * SECONDS) / r.seconds);
    statuses = r.statuses;
  }
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const roundStatements = statements - statementsBefore;
  gcObserver.disconnect();
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
  // The rounds' numbers first: on a loaded machine the drain below can take minutes.
  report(
    `webhook accept rounds at ${RATE} req/s (${driver}${ADMIT_AFTER ? ", admitter after" : ""})`,
    {
      p50Ms: round(median(p50s)),
      p99Ms: round(median(p99s)),
      achievedRps: round(median(achieved), 1),
      eventLoopDelayP99Ms: round(loopDelay.percentile(99) / 1e6),
      cpuMsPerRequest: round((cpu.user + cpu.system) / 1000 / (RATE * SECONDS * ROUNDS), 3),
      statementsPerRequest: round(roundStatements / (RATE * SECONDS * ROUNDS), 2),
    },
  );
  // Settle the inbox, then hold every answer against the runs table.
  const drainStart = performance.now();
  const drainCpuBefore = process.cpuUsage();
  const drainStatementsBefore = statements;
  const queuedBeforeDrain = await handle.db.$count(runs, eq(runs.triggerId, created.trigger.id));
  admitter ??= startAdmitter();
  await admitter.drain();
  const drainSeconds = (performance.now() - drainStart) / 1000;
  const drainCpu = process.cpuUsage(drainCpuBefore);
  const drainStatements = statements - drainStatementsBefore;
  await admitter.stop();
  const made = await handle.db
    .select({ id: runs.id })
    .from(runs)
    .where(eq(runs.triggerId, created.trigger.id));
  const madeIds = new Set(made.map((r) => r.id));
  let lost = 0;
  let split = 0;
  const answeredIds = new Set<string>();
  for (const ids of answered.values()) {
    if (ids.size > 1) split++;
    for (const id of ids) {
      answeredIds.add(id);
      if (!madeIds.has(id)) lost++;
    }
  }
  const mode = ADMIT_AFTER ? ", admitter after" : "";
  report(`webhook accept at ${RATE} req/s (${driver}, node:http + route adapter${mode})`, {
    rounds: ROUNDS,
    requestsPerRound: RATE * SECONDS,
    p50Ms: round(median(p50s)),
    p99Ms: round(median(p99s)),
    achievedRps: round(median(achieved), 1),
    lastRoundStatuses: statuses,
    distinctDeliveries: answered.size,
    runsCreated: made.length,
    lost,
    // A body answered with two run ids, or a run nobody was answered.
    doubled: split + made.filter((r) => !answeredIds.has(r.id)).length,
    admitterDrainSeconds: round(drainSeconds, 1),
    eventLoopDelayMs: {
      p50: round(loopDelay.percentile(50) / 1e6),
      p99: round(loopDelay.percentile(99) / 1e6),
      max: round(loopDelay.max / 1e6),
    },
    gcMs: { minor: round(gc.minorMs), major: round(gc.majorMs), max: round(gc.maxMs), n: gc.count },
    heapUsedMbAfterRounds: round(heapMb, 1),
    // CPU of this process (all threads, the load generator included) per request over the
    // rounds, and per run left for the drain: what load-independent comparisons should use.
    cpuMsPerRequest: round((cpu.user + cpu.system) / 1000 / (RATE * SECONDS * ROUNDS), 3),
    cpuSystemShare: round(cpu.system / (cpu.user + cpu.system), 2),
    drainCpuMs: round((drainCpu.user + drainCpu.system) / 1000),
    statementsPerRequest: round(roundStatements / (RATE * SECONDS * ROUNDS), 2),
    drainRuns: made.length - queuedBeforeDrain,
    drainStatementsPerRun: round(drainStatements / Math.max(1, made.length - queuedBeforeDrain), 2),
    targetP99Ms: 25,
  });
  if (process.env.BENCH_STATEMENTS === "1")
    for (const [text, n] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(String(n).padStart(7), text.replace(/\s+/g, " ").slice(0, 160));
  server.close();
  await handle.close();
  await drop?.();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
