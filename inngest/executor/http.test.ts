/**
 * The production path end to end over real sockets: the executor listens on a port and calls the
 * app with `fetch`; the app is a node:http server hosting the SDK's serve handler; the SDK sends
 * events to the executor's port; the admin API is read over HTTP.
 */
import http from "node:http";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../../db/testing";
import { createLogger, setLogLevel } from "../../lib/log";
import type { ExecutionDetail, ExecutionSummary } from "./admin";
import { manualClock } from "./clock";
import { createExecutor, type Executor } from "./executor";

let db: TestDb;
let executor: Executor;
let app: http.Server;
let appUrl: string;
const clock = manualClock();
let inngest: Inngest;

async function waitFor<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  setLogLevel("silent");
  db = await createTestDb("http");
  executor = createExecutor({
    db,
    clock,
    log: createLogger({ component: "executor-http-test" }),
    backoff: () => 10,
    pollIntervalMs: 50,
  });
  await executor.start({ port: 0, cron: false });

  inngest = new Inngest({
    id: "http-app",
    isDev: true,
    baseUrl: executor.url,
    logger: { info() {}, warn() {}, error() {}, debug() {} },
  });
  const flow = inngest.createFunction(
    { id: "flow", triggers: [{ event: "http/go" }] },
    async ({ event, step }) => {
      const [a, b] = await Promise.all([step.run("a", () => "A"), step.run("b", () => "B")]);
      await step.sleep("pause", "5m");
      const approval = await step.waitForEvent("approve", {
        event: "http/approve",
        match: "data.id",
        timeout: "1h",
      });
      await step.sendEvent("done", {
        name: "http/done",
        data: { id: (event.data as { id: string }).id },
      });
      return { ab: a + b, approvedBy: (approval?.data as { by?: string } | undefined)?.by };
    },
  );
  app = http.createServer(serve({ client: inngest, functions: [flow] }));
  await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}/api/inngest`;
  await executor.sync([appUrl]);
});
afterAll(async () => {
  await executor?.stop();
  await new Promise((r) => app?.close(r));
  await db?.close();
});

describe("real HTTP path", () => {
  it("runs a function through fetch ↔ node:http, and serves the admin API over HTTP", async () => {
    const fns = (await (await fetch(`${executor.url}/admin/functions`)).json()) as {
      functions: Array<{ id: string; appUrl: string }>;
    };
    expect(fns.functions).toEqual([expect.objectContaining({ id: "http-app-flow", appUrl })]);

    const { ids } = await inngest.send({ name: "http/go", data: { id: "x1" } });
    const runId = await waitFor(async () => {
      const res = (await (
        await fetch(`${executor.url}/admin/runs?functionId=http-app-flow`)
      ).json()) as { runs: ExecutionSummary[] };
      return res.runs.find((r) => r.eventId === ids[0])?.id;
    }, "the run");
    const getExecution = async () =>
      (await (await fetch(`${executor.url}/admin/runs/${runId}`)).json()) as ExecutionDetail;

    await waitFor(
      async () =>
        (await getExecution()).steps.some((s) => s.status === "sleeping") ? true : undefined,
      "the sleep",
    );
    clock.advance(5 * 60_000);
    await waitFor(
      async () =>
        (await getExecution()).steps.some((s) => s.status === "waiting") ? true : undefined,
      "the wait",
    );
    await inngest.send({ name: "http/approve", data: { id: "x1", by: "alice" } });
    const run = await waitFor(async () => {
      const r = await getExecution();
      return r.status === "completed" ? r : undefined;
    }, "completion");
    expect(run.output).toEqual({ ab: "AB", approvedBy: "alice" });
    expect(run.steps.map((s) => s.name)).toEqual(
      expect.arrayContaining(["a", "b", "pause", "approve", "done"]),
    );
    expect(run.steps.every((s) => s.attempts <= 1)).toBe(true);
    const events = (await (await fetch(`${executor.url}/admin/events?name=http/done`)).json()) as {
      events: Array<{ payload: { data: unknown } }>;
    };
    expect(events.events[0]?.payload.data).toEqual({ id: "x1" });
    expect((await fetch(`${executor.url}/admin/runs/nope`)).status).toBe(404);
    expect((await fetch(`${executor.url}/health`)).status).toBe(200);
  });
});
