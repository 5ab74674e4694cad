/**
 * Signing: with a signing key the executor signs every request exactly as the SDK verifies it in
 * cloud mode (JCS + HMAC) and verifies the SDK's response signatures; a wrong key is refused on
 * both sides. The executor's own endpoints require the key (Bearer) and the event key.
 */
import { sql } from "drizzle-orm";
import { serve } from "inngest/next";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "../../db/client";
import { env } from "../../env";
import { createExecutor } from "./executor";
import { hashedSigningKey } from "../../lib/server-only/signing-key";
import {
  executorBridge,
  startHarness,
  testClient,
  TEST_APP_URL,
  TEST_EXECUTOR_URL,
  type Harness,
} from "./testing";
import { inProcessTransport, type ServeHandler } from "./transport";

const KEY = `signkey-test-${"a1".repeat(32)}`;
const WRONG = `signkey-test-${"b2".repeat(32)}`;
const EVENT_KEY = "test-event-key";

// The SDK's fetch, noting the executor's answers to its checkpoints.
const inner = executorBridge();
const checkpointStatuses: number[] = [];
const bridge = {
  attach: inner.attach,
  fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await inner.fetch(input, init);
    if (new URL(new Request(input, init).url).pathname.startsWith("/v1/checkpoint"))
      checkpointStatuses.push(res.status);
    return res;
  }) as typeof fetch,
};
const inngest = testClient("signed", bridge, { signingKey: KEY, eventKey: EVENT_KEY });

const steps = inngest.createFunction(
  { id: "steps", retries: 0, triggers: [{ event: "s/go" }] },
  async ({ event, step }) => {
    const a = await step.run("a", () => (event.data as { n: number }).n + 1);
    await step.sleep("nap", "1s");
    const sent = await step.sendEvent("notify", { name: "s/notified", data: { a } });
    return { a, sent: sent.ids.length };
  },
);
const handler = serve({ client: inngest, functions: [steps] }) as unknown as ServeHandler;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [steps],
    bridge,
    label: "signing",
    executor: { signingKey: KEY, eventKey: EVENT_KEY },
  });
});
afterAll(async () => h?.close());

describe("cloud-mode SDK against the executor", () => {
  it("syncs and runs with signed requests the SDK accepts", async () => {
    const fns = await h.executor.admin.listFunctions();
    expect(fns.map((f) => [f.id, f.status])).toEqual([["signed-steps", "active"]]);
    const eventId = await h.send("s/go", { n: 1 });
    const [runId] = await h.executionsFor(eventId);
    await h.until(
      async () =>
        (await h.executor.admin.getExecution(runId!))?.steps.some((s) => s.status === "sleeping"),
      "the sleep",
    );
    h.clock.advance(1_000);
    const run = await h.waitForExecution(runId!);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ a: 2, sent: 1 });
    // `a`, then the sendEvent after the sleep, ran inline: checkpointed with the hashed-key Bearer.
    if (env.SLUICE_EXECUTOR_CHECKPOINTING) expect(checkpointStatuses).toEqual([200, 200]);
    else expect(checkpointStatuses).toEqual([]);
  });

  it("requires the signing key (Bearer) on checkpoints", async () => {
    const post = (authorization?: string) =>
      h.executor.fetch(
        new Request(`${TEST_EXECUTOR_URL}/v1/checkpoint/no-such-run/async`, {
          method: "POST",
          headers: authorization ? { authorization } : {},
          body: JSON.stringify({
            run_id: "no-such-run",
            fn_id: "signed-steps",
            qi_id: "1.token",
            steps: [{ id: "x", op: "StepRun", data: 1 }],
          }),
        }),
      );
    expect((await post()).status).toBe(401);
    expect((await post("Bearer")).status).toBe(401);
    expect((await post(`Bearer ${hashedSigningKey(WRONG)}`)).status).toBe(401);
    // Authenticated, then fenced: no such run → 409.
    expect((await post(`Bearer ${hashedSigningKey(KEY)}`)).status).toBe(409);
    expect((await post(`Bearer ${KEY}`)).status).toBe(409);
  });

  it("refuses an app that does not sign its responses with the key", async () => {
    const devBridge = executorBridge();
    const devClient = testClient("unsigned", devBridge);
    const devFn = devClient.createFunction(
      { id: "f", triggers: [{ event: "x" }] },
      async () => "x",
    );
    const ex = createExecutor({
      db: h.db,
      signingKey: KEY,
      transport: inProcessTransport(
        serve({ client: devClient, functions: [devFn] }) as unknown as ServeHandler,
      ),
      log: h.executor.ctx.log,
    });
    await expect(ex.sync([TEST_APP_URL])).rejects.toThrow(/response signature is invalid/);
  });

  it("an executor with the wrong key is refused by the SDK", async () => {
    const wrong = createExecutor({
      db: h.db,
      signingKey: WRONG,
      transport: inProcessTransport(handler),
      log: h.executor.ctx.log,
    });
    await expect(wrong.sync([TEST_APP_URL])).rejects.toThrow(/HTTP 401/);

    // Drive a run with the wrong key: every call is refused (401), and the run fails saying why.
    await h.executor.stop();
    const wrongWorker = createExecutor({
      db: h.db,
      clock: h.clock,
      signingKey: WRONG,
      transport: inProcessTransport(handler),
      log: h.executor.ctx.log,
      backoff: () => 5,
      pollIntervalMs: 50,
    });
    await wrongWorker.start({ cron: false, syncInBackground: false });
    try {
      const [eventId] = await wrongWorker.send({ name: "s/go", data: { n: 1 } });
      const [run] = await wrongWorker.admin.listExecutions({ eventId });
      const done = await wrongWorker.admin.waitForExecution(run!.id);
      expect(done.status).toBe("failed");
      expect(done.error?.message).toMatch(/refused the executor's signature \(401\)/);
    } finally {
      await wrongWorker.stop();
    }
  });
});

describe("the executor's own endpoints", () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    bridge.fetch(`${TEST_EXECUTOR_URL}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });

  it("requires the event key on the event API", async () => {
    expect((await post("/e/wrong-key", { name: "s/x", data: {} })).status).toBe(401);
    const ok = await post(`/e/${EVENT_KEY}`, { name: "s/x", data: {} });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 200 });
  });

  it("requires the signing key on the admin API (Bearer, raw or hashed)", async () => {
    const get = (auth?: string) =>
      bridge.fetch(`${TEST_EXECUTOR_URL}/admin/functions`, {
        headers: auth ? { authorization: auth } : {},
      });
    expect((await get()).status).toBe(401);
    expect((await get(`Bearer ${WRONG}`)).status).toBe(401);
    expect((await get(`Bearer ${KEY}`)).status).toBe(200);
    expect((await get(`Bearer ${hashedSigningKey(KEY)}`)).status).toBe(200);
  });

  it("accepts the SDK's own out-of-band registration with its Bearer token, and only that", async () => {
    const unauth = await post("/fn/register", {
      url: TEST_APP_URL,
      appName: "signed",
      functions: [],
    });
    expect(unauth.status).toBe(401);
    await execRows(
      h.db.db,
      sql`update executor_functions set status = 'removed' where id = 'signed-steps'`,
    );
    // A PUT without the in-band header makes the SDK POST /fn/register itself (Bearer hashed key).
    const res = await handler.PUT(new Request(TEST_APP_URL, { method: "PUT" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ modified: true });
    const fns = await h.executor.admin.listFunctions();
    expect(fns.find((f) => f.id === "signed-steps")?.status).toBe("active");
  });
});
