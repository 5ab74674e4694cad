/**
 * Issue 30: GET /api/health and GET /api/ready through the real route handlers, unauthenticated.
 * In a test process no embedded executor or relay runs, so readiness reports those two as the
 * reasons; closing the database then fails its checks too (the answer is cached for a second).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { pollUntil } from "@/inngest/executor/testing";
import * as healthRoute from "./health/route";
import * as readyRoute from "./ready/route";

let t: TestDb;
let closed = false;
beforeAll(async () => {
  t = await createTestDb("probes");
  setProcessDb(t);
});
afterAll(async () => {
  if (!closed) await t?.close();
});

type Body = {
  status: string;
  checks: Record<
    "database" | "migrations" | "engine" | "outboxRelay",
    { ok: boolean; reason?: string }
  >;
  checkedAt: string;
};

describe("probes", () => {
  it("/api/health answers 200 without a session, with the API headers", async () => {
    const res = await healthRoute.GET();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("/api/ready answers 503 naming each failed check, then fails the database once it closes", async () => {
    const res = await readyRoute.GET();
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await res.json()) as Body;
    expect(body.status).toBe("not_ready");
    expect(body.checks).toEqual({
      database: { ok: true },
      migrations: { ok: true },
      engine: { ok: false, reason: "embedded executor is not running" },
      outboxRelay: { ok: false, reason: "outbox relay is not running" },
    });

    await t.close();
    closed = true;
    const gone = await pollUntil(
      async () => {
        const r = await readyRoute.GET();
        const b = (await r.json()) as Body;
        return !b.checks.database.ok && { status: r.status, body: b };
      },
      "the readiness cache to expire",
      10_000,
      50,
    );
    expect(gone.status).toBe(503);
    expect(gone.body.checks.database.reason).toMatch(/^database not reachable/);
    expect(gone.body.checks.migrations.ok).toBe(false);
    expect(JSON.stringify(gone.body)).not.toMatch(/postgres:\/\//);
  });
});
