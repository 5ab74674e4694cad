/**
 * Two Sluice instances behind signed `inngest start` (Postgres + Redis), one killed with SIGKILL
 * while runs are mid-step (issue 24 item 2). Every run must complete; an effect may repeat only
 * where the at-least-once contract says so — a step that was in flight on the dead instance — and
 * then with the same Idempotency-Key (claimAttempt's lease lapsed; the survivor takes it over).
 *
 *   inngest start ──▶ proxy :8560 ──round robin──▶ instance A :8562 (killed) / instance B :8563
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inngestBinary, startInngestServer, type InngestServer } from "./inngest-server";
import { restoreEngineEnv } from "./engines";

const PORTS = { proxy: 8560, a: 8562, b: 8563, server: { base: 8564, grpc: 50564 }, redisDb: 6 };
const FIXTURE = path.resolve("inngest/conformance/test-fixtures/app-instance.ts");

const found = inngestBinary();
const why =
  "missing" in found
    ? found.missing
    : !process.env.TEST_DATABASE_URL
      ? "two instances need a shared Postgres (TEST_DATABASE_URL)"
      : undefined;
if (why && process.env.SLUICE_REQUIRE_INNGEST === "1") throw new Error(why);
if (why) console.warn(`failover on inngest start skipped: ${why}`);

const hex = [...crypto.getRandomValues(new Uint8Array(32))]
  .map((b) => b.toString(16).padStart(2, "0"))
  .join("");
const eventKey = `evt-${hex.slice(0, 16)}`;
const serverUrl = `http://127.0.0.1:${PORTS.server.base}`;
const appEnv = {
  SLUICE_EXECUTOR: "inngest",
  INNGEST_BASE_URL: serverUrl,
  INNGEST_SIGNING_KEY: `signkey-prod-${hex}`,
  INNGEST_EVENT_KEY: eventKey,
};
// This process only starts runs (the outbox; the instances relay it).
Object.assign(process.env, appEnv);
delete process.env.INNGEST_DEV;

(why ? describe.skip : describe)("failover: two instances behind inngest start", () => {
  const children: Record<"a" | "b", ChildProcess | undefined> = { a: undefined, b: undefined };
  let server: InngestServer | undefined;
  let proxy: http.Server | undefined;
  let cleanup: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const { createTestDb } = await import("@/db/testing");
    const { setProcessDb } = await import("@/db");
    const db = await createTestDb("failover");
    setProcessDb(db);
    cleanup.push(() => db.close());
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${db.name}`;
    for (const k of ["a", "b"] as const)
      children[k] = await startInstance(PORTS[k], url.toString());
    proxy = await startProxy(PORTS.proxy, [PORTS.a, PORTS.b]);
    server = await startInngestServer({
      mode: "start",
      bin: (found as { bin: string }).bin,
      ports: PORTS.server,
      appUrl: `http://127.0.0.1:${PORTS.proxy}/api/inngest`,
      postgresUrl: process.env.TEST_DATABASE_URL,
      redisDb: PORTS.redisDb,
      label: "failover",
      keys: { signingHex: hex, eventKey },
    });
    const sync = await fetch(`http://127.0.0.1:${PORTS.proxy}/api/inngest`, { method: "PUT" });
    expect(sync.status, await sync.text()).toBe(200);
    (globalThis as { __failoverDb?: unknown }).__failoverDb = db;
  }, 180_000);

  afterAll(async () => {
    for (const c of Object.values(children)) if (c && c.exitCode === null) c.kill("SIGKILL");
    await server?.stop();
    proxy?.closeAllConnections();
    await new Promise((r) => (proxy ? proxy.close(() => r(undefined)) : r(undefined)));
    for (const f of cleanup.reverse()) await f();
    cleanup = [];
    restoreEngineEnv();
  });

  it("every run completes; a repeated effect was in flight on the dead instance and kept its Idempotency-Key", async () => {
    const { createWorkspaceFixture } = await import("@/server/testing/harness");
    const { runReads } = await import("@/server/testing/run-harness");
    const { openWorkspace, startCountingStub, fanOutDefinition } = await import("./fixtures");
    const { runs } = await import("@/db/schema");
    const { eq } = await import("drizzle-orm");
    const db = (globalThis as { __failoverDb?: import("@/db/testing").TestDb }).__failoverDb!;
    const ws = await createWorkspaceFixture(db.db, "Failover");
    const { pollUntil } = await import("../executor/testing");
    const until = <T>(check: () => Promise<T | undefined | false>, what: string, ms = 180_000) =>
      pollUntil(check, what, ms, 50);
    const reads = runReads({ db, ws, until });
    const e = { db, ws } as Parameters<typeof openWorkspace>[0];
    await openWorkspace(e);
    const stub = await startCountingStub({ delayMs: () => 1_500 });
    cleanup.push(() => stub.close());
    const wf = await reads.workflow({
      ...fanOutDefinition("Failover", 4, "fo-{{ run.id }}"),
      variables: { stub: stub.origin },
    });
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await reads.start(wf));
    // Kill A while branches are in flight (the stub answers each call after 1.5 s).
    await until(async () => stub.calls.length >= 12 || undefined, "calls in flight", 60_000);
    const killedAt = Date.now();
    children.a!.kill("SIGKILL");
    for (const id of ids) {
      const run = await reads.waitFor(id, ["completed", "failed", "cancelled", "timed_out"], {
        timeoutMs: 180_000,
      });
      expect(run.status, `${id}: ${JSON.stringify(run.error)}`).toBe("completed");
    }
    const byKey = new Map<string, typeof stub.calls>();
    for (const c of stub.calls) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
    let repeated = 0;
    for (const [key, calls] of byKey) {
      if (calls.length === 1) continue;
      repeated++;
      // `<=`: the stub runs in this process, so a call stamped in killedAt's millisecond was
      // recorded before killedAt was read (nothing runs between Date.now() and kill()).
      expect(calls[0]!.at, `${key} repeated but was not in flight at the kill`).toBeLessThanOrEqual(
        killedAt,
      );
      expect(new Set(calls.map((c) => c.idempotencyKey)).size, `${key} keys`).toBe(1);
    }
    // Every run's every effect happened at least once (the join waited for all branches).
    for (const id of ids) {
      for (let b = 0; b < 4; b++)
        expect(byKey.get(`fo-${id}-b${b}`)?.length ?? 0).toBeGreaterThan(0);
      expect(stub.lines(`fo-${id}-after`)).toBe(1);
    }
    console.info(
      `failover: ${repeated} effect(s) repeated after the kill, each in flight on the dead instance`,
    );
    const rows = await db.db.select().from(runs).where(eq(runs.workspaceId, ws.workspaceId));
    expect(rows.every((r) => r.status === "completed")).toBe(true);
  }, 300_000);
});

async function startInstance(port: number, dbUrl: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", FIXTURE], {
    cwd: process.cwd(),
    env: { ...process.env, ...appEnv, APP_PORT: String(port), APP_DB_URL: dbUrl, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  proc.stderr!.on("data", (d) => (err = (err + String(d)).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start: ${err}`)), 90_000);
    proc.stdout!.on("data", (d) => {
      if (String(d).includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code}: ${err}`));
    });
  });
  return proc;
}

/**
 * A round-robin load balancer: a request whose upstream refuses the connection goes to the other
 * one (as a balancer's health check would arrange); one cut mid-request answers 502, which
 * Inngest retries.
 */
async function startProxy(port: number, upstreams: number[]): Promise<http.Server> {
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const first = next++ % upstreams.length;
      const attempt = (i: number) => {
        const up = http.request(
          {
            host: "127.0.0.1",
            port: upstreams[(first + i) % upstreams.length],
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
            r.on("error", () => res.destroy());
          },
        );
        up.on("error", (e: NodeJS.ErrnoException) => {
          if (e.code === "ECONNREFUSED" && i + 1 < upstreams.length) return attempt(i + 1);
          if (!res.headersSent) {
            res.statusCode = 502;
            res.end(`upstream failed: ${e.code ?? e.message}`);
          } else res.destroy();
        });
        up.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return server;
}
