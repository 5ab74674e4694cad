/**
 * Crash safety: the executor and a tiny app run in a child process on a PGlite folder (or a
 * Postgres database); the test kills it with SIGKILL while a step is sleeping and again in the
 * middle of a step, restarts it each time, and checks that the run completes with every step
 * result recorded exactly once. Steps are at-least-once: only the step killed mid-flight runs twice.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, testDriver, type TestDb } from "../../db/testing";
import type { ExecutionDetail } from "./admin";

const fixture = path.join(__dirname, "test-fixtures", "crash-app.ts");
let dir: string;
let dbTarget: string;
let pgDb: TestDb | undefined;
let child: ChildProcess | undefined;
let appPort: number;
let execPort: number;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

function start(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", fixture], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      CRASH_DB: dbTarget,
      CRASH_APP_PORT: String(appPort),
      CRASH_EXEC_PORT: String(execPort),
      CRASH_LOG: path.join(dir, "side-effects.log"),
      CRASH_LEASE_MS: "1000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += String(d)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child did not start: ${stderr}`)), 30_000);
    proc.stdout!.on("data", (d) => {
      if (String(d).includes("ready")) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

async function kill(proc: ChildProcess) {
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGKILL");
  await exited;
}

const api = async <T>(p: string, init?: RequestInit) =>
  (await (await fetch(`http://127.0.0.1:${execPort}${p}`, init)).json()) as T;
const sideEffects = () => {
  const file = path.join(dir, "side-effects.log");
  return fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean)
    : [];
};
async function until<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve()
      .then(fn)
      .catch(() => undefined);
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-crash-"));
  if (testDriver() === "postgres") {
    pgDb = await createTestDb("crash");
    dbTarget = pgDb.url!;
  } else dbTarget = path.join(dir, "pglite");
  appPort = await freePort();
  execPort = await freePort();
});
afterAll(async () => {
  if (child && child.exitCode === null) await kill(child);
  await pgDb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("crash safety", () => {
  it("kill -9 while sleeping and mid-step: the run completes, no step result lost or duplicated", async () => {
    child = await start();
    await until(
      async () => (await api<{ functions: unknown[] }>("/admin/functions")).functions.length === 1,
      "the sync",
    );
    const { ids } = await api<{ ids: string[] }>("/e/key", {
      method: "POST",
      body: JSON.stringify({ name: "crash/go", data: {} }),
    });
    const runId = await until(
      async () =>
        (await api<{ runs: Array<{ id: string }> }>(`/admin/runs?eventId=${ids[0]}`)).runs[0]?.id,
      "the run",
    );
    const run = () => api<ExecutionDetail>(`/admin/runs/${runId}`);

    // 1. Killed while the run sleeps (step one committed).
    await until(
      async () => (await run()).steps.some((s) => s.name === "nap" && s.status === "sleeping"),
      "the sleep",
    );
    await kill(child);

    // 2. Restarted: the durable timer fires; killed again while step two is executing.
    child = await start();
    await until(() => sideEffects().includes("two:start"), "step two to start");
    expect(sideEffects()).not.toContain("two:end");
    await kill(child);

    // 3. Restarted: step two's lease is recovered and the step runs again; the run completes.
    child = await start();
    const done = await until(
      async () => {
        const r = await run();
        return r.status === "completed" ? r : undefined;
      },
      "the run to complete",
      30_000,
    );

    expect(done.output).toBe(6);
    expect(done.steps.map((s) => [s.name, s.output])).toEqual([
      ["one", { data: 1 }],
      ["nap", null],
      ["two", { data: 2 }],
      ["three", { data: 3 }],
    ]);
    expect(new Set(done.steps.map((s) => s.id)).size).toBe(4);
    const effects = sideEffects();
    expect(effects.filter((e) => e === "one")).toHaveLength(1); // committed before the first kill: never re-run
    expect(effects.filter((e) => e === "two:start")).toHaveLength(2); // killed mid-step: at-least-once
    expect(effects.filter((e) => e === "three")).toHaveLength(1);
    expect(
      done.history.some(
        (e) => e.type === "step.completed" && e.stepName === "two" && e.attempt === 1,
      ),
    ).toBe(true);
  }, 90_000);
});
