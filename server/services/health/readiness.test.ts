/**
 * Issue 30: the readiness checks on a real database, the real embedded executor (run harness) and
 * a real HTTP server standing in for a remote Inngest; each failing check names what failed.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "@/db/client";
import { createTestDb, migrationsBefore } from "@/db/testing";
import { env } from "@/env";
import { pollUntil } from "@/inngest/executor/testing";
import { createLogger } from "@/lib/log";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { startOutboxRelay } from "../outbox/relay-runner";
import { safeReason } from "./checks";
import { probeEngine } from "./engine";
import { cachedProbe, checkReadiness, type ReadinessDeps } from "./readiness";

let rh: RunHarness;
let deps: ReadinessDeps;

beforeAll(async () => {
  rh = await startRunHarness("ready");
  deps = {
    db: async () => rh.db.db,
    migrationsFolder: MIGRATIONS_FOLDER,
    // The harness routes the executor's loopback origin to its in-process executor.
    engine: () =>
      probeEngine({
        kind: "embedded",
        ready: Promise.resolve(rh.h.executor),
        synced: () => rh.h.executor.synced(),
        healthUrl: `http://127.0.0.1:${env.SLUICE_EXECUTOR_PORT}/health`,
      }),
  };
  // The relay beats after its first pass.
  await rh.relay.drain();
});
afterAll(async () => {
  await rh?.close();
});

describe("checkReadiness", () => {
  it("is ready with a migrated database, a synced executor and a running relay", async () => {
    const r = await checkReadiness(deps);
    expect(r.checks).toEqual({
      database: { ok: true },
      migrations: { ok: true },
      engine: { ok: true },
      outboxRelay: { ok: true },
    });
    expect(r.status).toBe("ready");
  });

  it("names the pending migrations of a database an older release left", async () => {
    const journal = JSON.parse(
      fs.readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"),
    ) as { entries: { tag: string }[] };
    const last = journal.entries.at(-1)!.tag;
    const old = await createTestDb("ready-old", { migrationsFolder: migrationsBefore(last) });
    try {
      const r = await checkReadiness({ ...deps, db: async () => old.db });
      expect(r.status).toBe("not_ready");
      expect(r.checks.migrations).toEqual({
        ok: false,
        reason: `1 migration(s) not applied: ${last}`,
      });
      expect(r.checks.database).toEqual({ ok: true });
    } finally {
      await old.close();
    }
  });

  it("fails the database checks on a closed handle, and when the database cannot be opened", async () => {
    const gone = await createTestDb("ready-gone");
    await gone.close();
    const r = await checkReadiness({ ...deps, db: async () => gone.db });
    expect(r.status).toBe("not_ready");
    expect(r.checks.database.ok).toBe(false);
    expect(r.checks.database.reason).toMatch(/^database not reachable/);
    expect(r.checks.migrations.ok).toBe(false);
    expect(r.checks.engine).toEqual({ ok: true });

    const unopened = await checkReadiness({
      ...deps,
      db: () => Promise.reject(new Error("connect failed for postgres://sluice:hunter2@db:5432/x")),
    });
    expect(unopened.checks.database).toEqual({
      ok: false,
      reason: "database: the database could not be opened",
    });
    expect(JSON.stringify(unopened)).not.toContain("hunter2");
  });

  it("fails the relay check once every relay has stopped, and passes again with a new one", async () => {
    await rh.relay.stop();
    const r = await checkReadiness(deps);
    expect(r.status).toBe("not_ready");
    expect(r.checks.outboxRelay).toEqual({ ok: false, reason: "outbox relay is not running" });
    // Restart one for the rest of the file (the harness stops api.relay on close).
    rh.relay = startOutboxRelay({
      db: rh.db.db,
      deliver: async () => undefined,
      log: createLogger({ component: "outbox-test" }),
      pollMs: 50,
    });
    await pollUntil(
      async () => (await checkReadiness(deps)).checks.outboxRelay.ok,
      "the new relay's first pass",
      10_000,
      20,
    );
  });

  it("fails the engine check when the embedded executor is not started or not synced", async () => {
    const stopped = await checkReadiness({
      ...deps,
      engine: () =>
        probeEngine({ kind: "embedded", ready: undefined, synced: async () => {}, healthUrl: "" }),
    });
    expect(stopped.checks.engine).toEqual({
      ok: false,
      reason: "embedded executor is not running",
    });
    const unsynced = await probeEngine({
      kind: "embedded",
      ready: Promise.resolve({}),
      synced: () => new Promise(() => {}),
      healthUrl: "",
    });
    expect(unsynced).toEqual({
      ok: false,
      reason: "embedded executor has not synced the app's functions yet",
    });
  });
});

describe("probeEngine with a real Inngest", () => {
  let server: http.Server;
  let status = 200;
  let baseUrl: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(req.url === "/health" ? status : 404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const addr = server.address() as { port: number };
    // Credentials in the base URL must never reach an answer.
    baseUrl = `http://user:s3cret@127.0.0.1:${addr.port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("is reachable when /health answers, and says so without the URL when not", async () => {
    status = 200;
    expect(
      await probeEngine({ kind: "inngest", baseUrl: baseUrl.replace("user:s3cret@", "") }),
    ).toEqual({ ok: true });
    status = 503;
    expect(
      await probeEngine({ kind: "inngest", baseUrl: baseUrl.replace("user:s3cret@", "") }),
    ).toEqual({
      ok: false,
      reason: "Inngest answered 503",
    });
    await new Promise<void>((r) => server.close(() => r()));
    const down = await probeEngine({ kind: "inngest", baseUrl });
    expect(down).toEqual({ ok: false, reason: "Inngest is not reachable" });
    server = http.createServer();
  });
});

describe("helpers", () => {
  it("safeReason drops URLs and quoted values", () => {
    const e = Object.assign(
      new Error('password authentication failed for user "admin" at postgres://admin:pw@h/db'),
      {
        code: "28P01",
      },
    );
    const reason = safeReason("database not reachable", e);
    expect(reason).toBe(
      "database not reachable: 28P01: password authentication failed for user <value> at <url>",
    );
  });

  it("cachedProbe shares one call in flight and keeps the answer for the ttl", async () => {
    let now = 0;
    let calls = 0;
    let release!: () => void;
    const probe = cachedProbe(
      () => {
        calls++;
        return new Promise<number>((r) => (release = () => r(calls)));
      },
      1_000,
      () => now,
    );
    const a = probe();
    const b = probe();
    release();
    expect([await a, await b]).toEqual([1, 1]);
    now = 999;
    expect(await probe()).toBe(1);
    now = 1_000;
    const c = probe();
    release();
    expect(await c).toBe(2);
    expect(calls).toBe(2);
  });
});
