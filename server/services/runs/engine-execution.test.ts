import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorApps, executorFunctions, executorExecutions } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { parseEnv } from "@/env";
import { ulid } from "@/lib/ids";
import { engineConfig } from "@/server/runtime";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import {
  embeddedExecutionStatus,
  engineLabel,
  executionUrl,
  inngestExecutionStatus,
} from "./engine-execution";
import { hashedSigningKey } from "@/lib/server-only/signing-key";

describe("embedded executor lookup (executor_runs)", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb("execlookup");
    await t.db.insert(executorApps).values({ id: "app", url: "http://127.0.0.1:1/api/inngest" });
    await t.db
      .insert(executorFunctions)
      .values({ id: "app-fn", appId: "app", config: {}, status: "active" });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("maps queued and running to running, the final statuses to ended, and no row to missing", async () => {
    const endedAt = new Date("2030-01-01T00:00:00Z");
    const ids: Record<string, string> = {};
    for (const status of ["queued", "running", "completed", "failed", "cancelled"] as const) {
      ids[status] = ulid();
      await t.db.insert(executorExecutions).values({
        id: ids[status],
        functionId: "app-fn",
        status,
        event: {},
        events: [],
        endedAt: status === "queued" || status === "running" ? null : endedAt,
      });
    }
    const lookup = embeddedExecutionStatus(t.db);
    expect(await lookup(ids.queued!)).toEqual({ state: "running" });
    expect(await lookup(ids.running!)).toEqual({ state: "running" });
    for (const status of ["completed", "failed", "cancelled"])
      expect(await lookup(ids[status]!)).toEqual({ state: "ended", status, endedAt });
    expect(await lookup(ulid())).toEqual({ state: "missing" });
  });
});

/**
 * Answers like inngest v1.43 (checked against the binary): GET /v1/runs/{id} is HTTP 200 with
 * `{data: {status: "Running"|…, ended_at}}`, or HTTP 200 with `{error, data: null, status: 500}`
 * for an unknown id; GET /v2/runs/{id} is 404 `{errors: [{code: "not_found"}]}` for it.
 */
const KEY = `signkey-prod-${"ab".repeat(32)}`;
const known: Record<string, { status: string; ended_at: string | null }> = {
  "01RUNNING": { status: "Running", ended_at: null },
  "01SCHEDULED": { status: "Scheduled", ended_at: null },
  "01DONE": { status: "Completed", ended_at: "2030-01-01T00:00:00.5Z" },
  "01FAILED": { status: "Failed", ended_at: "2030-01-01T00:00:00Z" },
  "01CANCELLED": { status: "Cancelled", ended_at: "2030-01-01T00:00:00Z" },
  "01ODD": { status: "Paused", ended_at: null },
};

describe("real Inngest lookup (REST API)", () => {
  let inngest: LocalServer;
  let broken: LocalServer;
  let elsewhere: LocalServer;
  beforeAll(async () => {
    inngest = await startHttpServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${hashedSigningKey(KEY)}`) {
        res.writeHead(401, { "content-type": "text/plain" });
        return res.end("Authentication failed\n");
      }
      const [, version, , id] = (req.url ?? "").split("/");
      const run = known[id!];
      if (version === "v1")
        return run
          ? sendJson(res, 200, { data: { run_id: id, ...run }, metadata: {} })
          : sendJson(res, 200, {
              error: `Unable to load function run: ${id}`,
              data: null,
              status: 500,
            });
      return run
        ? sendJson(res, 200, { data: { id } })
        : sendJson(res, 404, { errors: [{ code: "not_found", message: "Run not found" }] });
    });
    // A database outage: v1 says 500 as for an unknown id, v2 fails too.
    broken = await startHttpServer((req, res) =>
      req.url?.startsWith("/v1/")
        ? sendJson(res, 200, { error: "Unable to load function run: x", data: null, status: 500 })
        : sendJson(res, 500, { errors: [{ code: "internal_server_error" }] }),
    );
    // INNGEST_BASE_URL pointing at something else: 404 everywhere.
    elsewhere = await startHttpServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>Not found</h1>");
    });
  });
  afterAll(async () => {
    await inngest?.close();
    await broken?.close();
    await elsewhere?.close();
  });

  it("reads the status with the hashed signing key", async () => {
    const lookup = inngestExecutionStatus({ baseUrl: `${inngest.origin}/`, signingKey: KEY });
    expect(await lookup("01RUNNING")).toEqual({ state: "running" });
    expect(await lookup("01SCHEDULED")).toEqual({ state: "running" });
    expect(await lookup("01DONE")).toEqual({
      state: "ended",
      status: "completed",
      endedAt: new Date("2030-01-01T00:00:00.500Z"),
    });
    expect(await lookup("01FAILED")).toMatchObject({ state: "ended", status: "failed" });
    expect(await lookup("01CANCELLED")).toMatchObject({ state: "ended", status: "cancelled" });
    const last = inngest.requests.at(-1)!;
    expect(last.url).toBe("/v1/runs/01CANCELLED");
    expect(last.headers.authorization).toBe(`Bearer ${hashedSigningKey(KEY)}`);
  });

  it("an unknown id is missing only when /v2/runs says not_found (404)", async () => {
    const lookup = inngestExecutionStatus({ baseUrl: inngest.origin, signingKey: KEY });
    expect(await lookup("01NOSUCHRUN")).toEqual({ state: "missing" });
    expect(inngest.requests.slice(-2).map((r) => r.url)).toEqual([
      "/v1/runs/01NOSUCHRUN",
      "/v2/runs/01NOSUCHRUN",
    ]);
  });

  it("throws, never answers, when it cannot tell", async () => {
    const signed = inngestExecutionStatus({ baseUrl: inngest.origin, signingKey: KEY });
    await expect(signed("01ODD")).rejects.toThrow(/reported execution 01ODD as "Paused"/);
    // Dev-mode lookup (no auth) against a signed server: refused.
    await expect(inngestExecutionStatus({ baseUrl: inngest.origin })("01DONE")).rejects.toThrow(
      /refused the signing key \(HTTP 401\)/,
    );
    await expect(inngestExecutionStatus({ baseUrl: broken.origin })("01ANY")).rejects.toThrow(
      /could not tell execution 01ANY's status: .*HTTP 200 \(Unable to load/,
    );
    await expect(inngestExecutionStatus({ baseUrl: elsewhere.origin })("01ANY")).rejects.toThrow(
      /\/v1\/runs answered HTTP 404 <h1>Not found<\/h1>, \/v2\/runs HTTP 404/,
    );
    // Unreachable: a server that just closed its port.
    const gone = await startHttpServer((_req, res) => res.end());
    await gone.close();
    await expect(
      inngestExecutionStatus({ baseUrl: gone.origin, timeoutMs: 2_000 })("01ANY"),
    ).rejects.toThrow();
  });

  it("dev mode sends no authorization", async () => {
    const dev = await startHttpServer((_req, res) =>
      sendJson(res, 200, { data: { status: "Running", ended_at: null } }),
    );
    try {
      expect(await inngestExecutionStatus({ baseUrl: dev.origin })("01X")).toEqual({
        state: "running",
      });
      expect(dev.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await dev.close();
    }
  });
});

describe("engine configuration, labels and dashboard links", () => {
  const env = (vars: Record<string, string>) =>
    engineConfig(parseEnv({ SLUICE_EXECUTOR: "inngest", ...vars }));

  it("resolves the engine the way the SDK does", () => {
    expect(engineConfig(parseEnv({}))).toEqual({ kind: "embedded" });
    expect(env({ INNGEST_DEV: "1" })).toEqual({
      kind: "inngest",
      baseUrl: "http://localhost:8288",
    });
    expect(env({ INNGEST_DEV: "http://127.0.0.1:8700/", INNGEST_SIGNING_KEY: KEY })).toEqual({
      kind: "inngest",
      baseUrl: "http://127.0.0.1:8700",
    });
    expect(env({ INNGEST_BASE_URL: "http://inngest:8288/", INNGEST_SIGNING_KEY: KEY })).toEqual({
      kind: "inngest",
      baseUrl: "http://inngest:8288",
      signingKey: KEY,
    });
    expect(
      env({
        INNGEST_SIGNING_KEY: KEY,
        SLUICE_INNGEST_DASHBOARD_URL: "https://app.inngest.com/env/production/runs/{runId}",
      }),
    ).toEqual({
      kind: "inngest",
      baseUrl: "https://api.inngest.com",
      signingKey: KEY,
      dashboardUrl: "https://app.inngest.com/env/production/runs/{runId}",
      isCloud: true,
    });
    expect(() =>
      env({ INNGEST_DEV: "1", SLUICE_INNGEST_DASHBOARD_URL: "https://app.inngest.com/runs" }),
    ).toThrow(/SLUICE_INNGEST_DASHBOARD_URL: must contain \{runId\}/);
  });

  it("links an execution to the server's own UI, the configured template, or nowhere", () => {
    expect(executionUrl({ kind: "embedded" }, "01X")).toBeNull();
    expect(executionUrl(undefined, "01X")).toBeNull();
    const dev = { kind: "inngest" as const, baseUrl: "http://127.0.0.1:8700/" };
    expect(executionUrl(dev, null)).toBeNull();
    expect(executionUrl(dev, "01X")).toBe("http://127.0.0.1:8700/run?runID=01X");
    const cloud = { kind: "inngest" as const, baseUrl: "https://api.inngest.com", isCloud: true };
    expect(executionUrl(cloud, "01X")).toBeNull();
    expect(
      executionUrl(
        { ...cloud, dashboardUrl: "https://app.inngest.com/env/prod/runs/{runId}" },
        "01X",
      ),
    ).toBe("https://app.inngest.com/env/prod/runs/01X");
    expect(engineLabel(undefined)).toBe("the embedded executor");
    expect(engineLabel(dev)).toBe("Inngest at http://127.0.0.1:8700/");
    expect(engineLabel(cloud)).toBe("Inngest Cloud");
  });
});
