/**
 * The reliability suite's two crash scenarios (issue 16), shared by reliability.test.ts (small
 * scale) and bench/reliability.ts (100 runs). Both drive engine-crash-app.ts in `mix` mode:
 * runs with parallel branches, a delay, an approval gate and an http call to a stub server that
 * lives in this process (so it outlives the child).
 *
 * - killNine: SIGKILL mid-flight, restart on the same data, approve the gates after the restart
 *   through the service; every run must complete with each step result recorded once.
 * - postgresRestart: a private, throwaway Postgres cluster is stopped (`-m fast`, connections
 *   drop) and started again while runs are in flight and webhook deliveries keep arriving; no run
 *   and no accepted delivery may be lost, none duplicated.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import {
  freePort,
  readChildState,
  startCrashChild,
  untilState,
  type CrashChild,
} from "./crash-child";

/** What engine-crash-app.ts reports in ENGINE_MIX mode (mixReport). */
export interface MixState {
  hookPath?: string;
  runs: number;
  byStatus: Record<string, number>;
  webhookRuns: number;
  stepRows: number;
  runsWithEveryStepOnce: number;
  duplicatedResults: number;
  approvals: number;
  pendingApprovals: number;
  decisions: number;
  failures: unknown[];
}

export interface HttpCalls {
  requests: number;
  /** Runs that reached the stub. */
  runsCalled: number;
  /** Runs whose calls carried more than one Idempotency-Key (a repeat that is not a replay). */
  runsWithSeveralKeys: number;
}

function stubCalls(stub: LocalServer): HttpCalls {
  const keys = new Map<string, Set<string>>();
  for (const r of stub.requests) {
    const run = new URL(r.url, stub.origin).searchParams.get("run") ?? "?";
    const set = keys.get(run) ?? new Set<string>();
    set.add(String(r.headers["idempotency-key"] ?? ""));
    keys.set(run, set);
  }
  return {
    requests: stub.requests.length,
    runsCalled: keys.size,
    runsWithSeveralKeys: [...keys.values()].filter((k) => k.size > 1).length,
  };
}

/** Everything that must hold at the end of either scenario; empty when all is well. */
export function mixProblems(final: MixState, expectedRuns: number, calls: HttpCalls): string[] {
  const problems: string[] = [];
  const completed = final.byStatus.completed ?? 0;
  if (final.runs !== expectedRuns) problems.push(`${final.runs} runs, expected ${expectedRuns}`);
  if (completed !== final.runs)
    problems.push(
      `${completed} of ${final.runs} runs completed: ${JSON.stringify(final.byStatus)} ${JSON.stringify(final.failures)}`,
    );
  if (final.runsWithEveryStepOnce !== final.runs)
    problems.push(`${final.runsWithEveryStepOnce} of ${final.runs} runs have every step once`);
  if (final.duplicatedResults !== 0)
    problems.push(`${final.duplicatedResults} step results recorded twice`);
  if (final.approvals !== final.runs || final.decisions !== final.runs)
    problems.push(
      `${final.approvals} gates and ${final.decisions} decisions for ${final.runs} runs`,
    );
  if (calls.runsCalled !== final.runs)
    problems.push(`${calls.runsCalled} of ${final.runs} runs reached the http stub`);
  if (calls.runsWithSeveralKeys !== 0)
    problems.push(`${calls.runsWithSeveralKeys} runs called with different Idempotency-Keys`);
  return problems;
}

const okStub = () => startHttpServer((_req, res) => sendJson(res, 200, { ok: true }));
/** Every run ended (completed, or failed/cancelled — then mixProblems says why). */
const settled = (s: MixState | undefined, runs: number) =>
  !!s &&
  s.runs === runs &&
  ["completed", "failed", "cancelled"].reduce((n, k) => n + (s.byStatus[k] ?? 0), 0) === runs &&
  s.pendingApprovals === 0;

export interface KillNineResult {
  runs: number;
  /** State read just before the SIGKILL. */
  atKill: MixState;
  final: MixState;
  calls: HttpCalls;
  problems: string[];
  /** Start of the child → kill; restart → every run completed. */
  msToKill: number;
  msToRecover: number;
}

export async function killNine(opts: { runs: number; target: string }): Promise<KillNineResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-kill9-"));
  const stub = await okStub();
  const env = { ENGINE_MIX: "1", ENGINE_RUNS: String(opts.runs), ENGINE_STUB: stub.origin };
  const state = () => readChildState<MixState>(dir);
  let child = await startCrashChild({ target: opts.target, dir, mode: "mix", env });
  let keep = true; // the folder (state, child.log) stays for a look when the scenario fails
  try {
    const t0 = Date.now();
    // Mid-flight: a quarter of the runs have called the stub and opened their gate, none can finish.
    const atKill = await untilState(
      dir,
      () => {
        const s = state();
        return (
          s &&
          s.runs === opts.runs &&
          stub.requests.length >= opts.runs / 4 &&
          s.pendingApprovals >= opts.runs / 4 &&
          s
        );
      },
      "runs in flight",
      180_000,
    );
    await child.kill();
    const msToKill = Date.now() - t0;
    const t1 = Date.now();
    child = await startCrashChild({
      target: opts.target,
      dir,
      mode: "resume",
      env: { ...env, ENGINE_DECIDE: "1" },
    });
    const final = await untilState(
      dir,
      () => settled(state(), opts.runs) && state(),
      "every run to end after the restart",
      300_000,
    );
    const msToRecover = Date.now() - t1;
    const calls = stubCalls(stub);
    const problems = mixProblems(final, opts.runs, calls);
    keep = problems.length > 0;
    return {
      runs: opts.runs,
      atKill,
      final,
      calls,
      problems,
      msToKill,
      msToRecover,
    };
  } finally {
    await child.kill();
    await stub.close();
    if (keep) console.warn(`reliability scenario failed; its state and child.log stay in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

const readFileOr = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** initdb and pg_ctl of the newest Postgres installed, or null (the scenario is then skipped). */
export function postgresBinaries(): { initdb: string; pgCtl: string } | null {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  for (const v of fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
    const initdb = path.join(root, v, "bin", "initdb");
    const pgCtl = path.join(root, v, "bin", "pg_ctl");
    if (fs.existsSync(initdb) && fs.existsSync(pgCtl)) return { initdb, pgCtl };
  }
  return null;
}

/** A throwaway cluster in a temp folder on its own port (never the shared one). */
export async function privateCluster() {
  const bins = postgresBinaries();
  if (!bins) throw new Error("no initdb under /usr/lib/postgresql/*/bin");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-pg-"));
  const data = path.join(dir, "data");
  const port = await freePort();
  // Postgres refuses to run as root: as root, the cluster belongs to the postgres OS user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["-R", "postgres", dir]);
  const run = (bin: string, args: string[]) => {
    if (asRoot)
      execFileSync(
        "su",
        ["postgres", "-s", "/bin/sh", "-c", [bin, ...args].map((a) => `'${a}'`).join(" ")],
        { stdio: "pipe" },
      );
    else execFileSync(bin, args, { stdio: "pipe" });
  };
  run(bins.initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    run(bins.pgCtl, ["-D", data, "-o", opts, "-l", path.join(dir, "log"), "-w", "start"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** Fast shutdown: every connection is dropped at once. */
    stop: () => run(bins.pgCtl, ["-D", data, "-m", "fast", "-w", "stop"]),
    start,
    destroy() {
      try {
        run(bins.pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PostgresRestartResult {
  runs: number;
  deliveriesSent: number;
  /** Deliveries first sent while the database was down. */
  sentDuringOutage: number;
  deliveriesAccepted: number;
  /** Attempts answered with an error or a dropped connection (then retried). */
  deliveryFailures: number;
  final: MixState;
  calls: HttpCalls;
  problems: string[];
  msDown: number;
  msToRecover: number;
}

/**
 * Webhook deliveries, one every `everyMs`, each retried (same Idempotency-Key) until a 2xx — as
 * a sender does. `stop()` stops new ones; `drain()` waits for every sent one to be accepted.
 */
function deliveryStream(url: () => string, everyMs: number) {
  let sent = 0;
  let accepted = 0;
  let failures = 0;
  let stopped = false;
  let abandoned = false;
  const inFlight: Promise<void>[] = [];
  const deliver = async (i: number) => {
    while (!abandoned) {
      const ok = await fetch(url(), {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": `delivery-${i}` },
        body: JSON.stringify({ i }),
      }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        accepted++;
        return;
      }
      failures++;
      await new Promise((r) => setTimeout(r, 100)); // the sender's retry backoff
    }
  };
  const timer = setInterval(() => {
    if (!stopped) inFlight.push(deliver(sent++));
  }, everyMs);
  return {
    counts: () => ({ sent, accepted, failures }),
    async drain() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlight);
    },
    /** Stops everything, retries included (cleanup after a failure). */
    abandon() {
      stopped = abandoned = true;
      clearInterval(timer);
    },
  };
}

export async function postgresRestart(opts: { runs: number }): Promise<PostgresRestartResult> {
  const cluster = await privateCluster();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-pgrestart-"));
  const stub = await okStub();
  const state = () => readChildState<MixState>(dir);
  const child = await startCrashChild({
    target: cluster.url,
    dir,
    mode: "mix",
    env: {
      ENGINE_MIX: "1",
      ENGINE_DECIDE: "1",
      ENGINE_BACKOFF: "production",
      ENGINE_RUNS: String(opts.runs),
      ENGINE_STUB: stub.origin,
    },
  });
  let hookPath = "";
  let keep = true; // the folder (state, child.log) stays for a look when the scenario fails
  const stream = deliveryStream(() => `${child.origin}/api/hooks/${hookPath}`, 250);
  try {
    hookPath = (await untilState(dir, () => state()?.hookPath, "the webhook path"))!;
    // Runs in flight and deliveries flowing before the database goes away.
    await untilState(
      dir,
      () => {
        const s = state();
        return s && s.stepRows >= opts.runs && stream.counts().accepted >= 5 && s;
      },
      "runs in flight and deliveries accepted",
      180_000,
    );
    const t0 = Date.now();
    cluster.stop();
    // Down until the app has seen the dropped connections (its log), not for a fixed pause.
    // Deliveries meanwhile wait on the driver's reconnect, or fail and are sent again.
    const dropped = () =>
      (readFileOr(path.join(dir, "child.log")).match(/CONNECTION_|ECONNREFUSED|57P01/g) ?? [])
        .length;
    const droppedBefore = dropped();
    const sentBefore = stream.counts().sent;
    await untilState(dir, () => dropped() >= droppedBefore + 3, "the app to see the drop");
    await untilState(dir, () => stream.counts().sent >= sentBefore + 2, "deliveries meanwhile");
    const sentDuringOutage = stream.counts().sent - sentBefore;
    cluster.start();
    const msDown = Date.now() - t0;
    const t1 = Date.now();
    const acceptedAtRestart = stream.counts().accepted;
    await untilState(
      dir,
      () => stream.counts().accepted >= acceptedAtRestart + 5,
      "deliveries accepted after the restart",
      120_000,
    );
    await stream.drain();
    const { sent, accepted, failures } = stream.counts();
    const final = await untilState(
      dir,
      () => settled(state(), opts.runs + accepted) && state(),
      "every run to end after the restart",
      300_000,
    );
    const msToRecover = Date.now() - t1;
    const calls = stubCalls(stub);
    const problems = mixProblems(final, opts.runs + accepted, calls);
    if (final.webhookRuns !== accepted)
      problems.push(`${final.webhookRuns} webhook runs for ${accepted} accepted deliveries`);
    keep = problems.length > 0;
    return {
      runs: opts.runs,
      deliveriesSent: sent,
      sentDuringOutage,
      deliveriesAccepted: accepted,
      deliveryFailures: failures,
      final,
      calls,
      problems,
      msDown,
      msToRecover,
    };
  } finally {
    stream.abandon();
    await child.kill();
    await stub.close();
    cluster.destroy();
    if (keep) console.warn(`reliability scenario failed; its state and child.log stay in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface FailoverResult {
  runs: number;
  leaseMs: number;
  /** Runs whose http call the killed instance had in flight (held by the stub) when it died. */
  callsInFlightAtKill: number;
  /** Kill → the survivor has made every one of those calls again (its lease expired). */
  msToFailover: number;
  final: MixState;
  calls: HttpCalls;
  problems: string[];
}

/**
 * Two instances on one Postgres (issue 14 item 8). The first starts the runs alone; the stub holds
 * their http calls, so that instance has leased jobs in flight; then the survivor starts and the
 * first instance is killed with SIGKILL, never to come back. Its jobs must be picked up by the
 * survivor once their lease expires, and every run must complete with each step result once.
 */
export async function failover(opts: {
  runs: number;
  /** A Postgres URL (PGlite has one opener per folder: no second instance). */
  target: string;
  leaseMs: number;
}): Promise<FailoverResult> {
  const dirA = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-failover-a-"));
  const dirB = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-failover-b-"));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const stub = await startHttpServer(async (_req, res) => {
    await gate;
    sendJson(res, 200, { ok: true });
  });
  const runOf = (url: string) => new URL(url, stub.origin).searchParams.get("run") ?? "?";
  const env = {
    ENGINE_MIX: "1",
    ENGINE_RUNS: String(opts.runs),
    ENGINE_STUB: stub.origin,
    ENGINE_DECIDE: "1",
    ENGINE_LEASE_MS: String(opts.leaseMs),
  };
  const a = await startCrashChild({ target: opts.target, dir: dirA, mode: "mix", env });
  let b: CrashChild | undefined;
  let keep = true;
  try {
    await untilState(
      dirA,
      () => stub.requests.length >= Math.min(3, opts.runs) && readChildState<MixState>(dirA),
      "the first instance's http calls in flight",
      180_000,
    );
    // Until the kill, only the first instance calls the stub and no call is answered.
    const heldByA = new Set(stub.requests.map((r) => runOf(r.url)));
    const seen = stub.requests.length;
    b = await startCrashChild({ target: opts.target, dir: dirB, mode: "resume", env });
    await a.kill();
    const tKill = Date.now();
    release(); // answered from now on: the survivor's calls, and the repeats of the held ones
    await untilState(
      dirB,
      () => {
        const again = new Set(stub.requests.slice(seen).map((r) => runOf(r.url)));
        return [...heldByA].every((run) => again.has(run));
      },
      "the survivor to repeat the killed instance's calls",
      10 * opts.leaseMs + 60_000,
    );
    const msToFailover = Date.now() - tKill;
    const final = await untilState(
      dirB,
      () => {
        const s = readChildState<MixState>(dirB);
        return settled(s, opts.runs) && s;
      },
      "every run to end on the survivor",
      300_000,
    );
    const calls = stubCalls(stub);
    const problems = mixProblems(final, opts.runs, calls);
    keep = problems.length > 0;
    return {
      runs: opts.runs,
      leaseMs: opts.leaseMs,
      callsInFlightAtKill: heldByA.size,
      msToFailover,
      final,
      calls,
      problems,
    };
  } finally {
    release();
    await a.kill();
    await b?.kill();
    await stub.close();
    if (keep) console.warn(`failover scenario failed; state and logs stay in ${dirA} and ${dirB}`);
    else for (const d of [dirA, dirB]) fs.rmSync(d, { recursive: true, force: true });
  }
}
