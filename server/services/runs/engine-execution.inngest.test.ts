/**
 * The real-Inngest lookup against the real server (v1.43.0, `inngest dev` and signed
 * `inngest start`), with a tiny SDK app of its own: a finished execution, a sleeping one, the
 * sleeping one cancelled, and an unknown id. Engine-only (no Sluice database), so it runs in the
 * pglite project alone; ports 8700-8705 / 50700-50703 and Redis db 9 are this file's.
 */
import http from "node:http";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  inngestBinary,
  startInngestServer,
  type InngestServer,
} from "@/inngest/conformance/inngest-server";
import { ulid } from "@/lib/ids";
import { inngestExecutionStatus } from "./engine-execution";

const binary = inngestBinary();
const skip =
  "missing" in binary
    ? `skipped: ${binary.missing}`
    : process.env.SLUICE_TEST_DB === "postgres"
      ? "skipped in the postgres project: engine-only, it runs once in the pglite project"
      : null;
if (skip) console.log(`engine-execution.inngest.test.ts ${skip}`);

const MODES = [
  { mode: "dev" as const, ports: { base: 8700, grpc: 50700 }, appPort: 8704 },
  { mode: "start" as const, ports: { base: 8702, grpc: 50702 }, appPort: 8705 },
];

describe.skipIf(skip !== null).each(MODES)("real Inngest ($mode): GET /v1/runs/{id}", (m) => {
  let server: InngestServer;
  let app: http.Server;
  let client: Inngest;
  const started = new Map<string, string>();
  beforeAll(async () => {
    const appUrl = `http://127.0.0.1:${m.appPort}/api/inngest`;
    server = await startInngestServer({
      mode: m.mode,
      bin: (binary as { bin: string }).bin,
      ports: m.ports,
      appUrl,
      redisDb: 9,
      label: "watchdog",
    });
    client = new Inngest(
      m.mode === "dev"
        ? { id: "watchdog-probe", isDev: true, baseUrl: server.url }
        : {
            id: "watchdog-probe",
            isDev: false,
            baseUrl: server.url,
            signingKey: server.signingKey!,
            eventKey: server.eventKey!,
          },
    );
    // Each execution reports its id (the server's event → runs index is cached for 15 s).
    const done = client.createFunction(
      { id: "done", triggers: [{ event: "probe/done" }] },
      async ({ step, event, runId }) => {
        started.set(event.data.key as string, runId);
        return step.run("a", () => 1);
      },
    );
    const sleeper = client.createFunction(
      {
        id: "sleeper",
        triggers: [{ event: "probe/sleep" }],
        cancelOn: [{ event: "probe/cancel", match: "data.key" }],
      },
      async ({ step, event, runId }) => {
        started.set(event.data.key as string, runId);
        await step.sleep("nap", "1h");
      },
    );
    app = http.createServer(serve({ client, functions: [done, sleeper] }));
    await new Promise<void>((resolve) => app.listen(m.appPort, "127.0.0.1", resolve));
    // Register now rather than waiting for the server's poll.
    const put = await fetch(appUrl, { method: "PUT" });
    expect(put.ok, await put.text()).toBe(true);
  }, 120_000);
  afterAll(async () => {
    app?.closeAllConnections();
    await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
    await server?.stop();
  });

  /** The execution an event started. */
  async function executionOf(name: string, key: string): Promise<string> {
    await client.send({ name, data: { key } });
    const deadline = Date.now() + 30_000;
    while (!started.has(key) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const id = started.get(key);
    if (!id) throw new Error(`${name} started no execution:\n${server.output()}`);
    return id;
  }

  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + 30_000;
    let v = await read();
    while (!ok(v) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      v = await read();
    }
    return v;
  }

  it("running, ended (completed, cancelled) and missing, as the server says", async () => {
    const lookup = inngestExecutionStatus({ baseUrl: server.url, signingKey: server.signingKey });
    const done = await executionOf("probe/done", "d");
    expect(
      await until(
        () => lookup(done),
        (s) => s.state === "ended",
      ),
    ).toMatchObject({
      state: "ended",
      status: "completed",
      endedAt: expect.any(Date),
    });
    const sleeping = await executionOf("probe/sleep", "s");
    expect(
      await until(
        () => lookup(sleeping),
        (s) => s.state === "running",
      ),
    ).toEqual({
      state: "running",
    });
    await client.send({ name: "probe/cancel", data: { key: "s" } });
    expect(
      await until(
        () => lookup(sleeping),
        (s) => s.state === "ended",
      ),
    ).toMatchObject({
      state: "ended",
      status: "cancelled",
    });
    expect(await lookup(ulid())).toEqual({ state: "missing" });
    if (m.mode === "start") {
      const wrongKey = inngestExecutionStatus({
        baseUrl: server.url,
        signingKey: `signkey-prod-${"00".repeat(32)}`,
      });
      await expect(wrongKey(done)).rejects.toThrow(/HTTP 401/);
    }
  }, 120_000);
});
