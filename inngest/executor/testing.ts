/**
 * Test harness: runs real Inngest functions (real SDK, real `serve()` from inngest/next) through a
 * real executor on a real database (`createTestDb()`: PGlite, or Postgres in the postgres project).
 * Nothing is mocked: the in-process transport calls the serve handler's POST/PUT with `Request`s,
 * and the SDK client's `fetch` reaches the executor's HTTP handler, so `inngest.send()` and
 * `step.sendEvent` go through the event API.
 *
 *   const bridge = executorBridge();
 *   const inngest = testClient("demo", bridge);
 *   const fn = inngest.createFunction(...);
 *   const h = await startHarness({ client: inngest, functions: [fn], bridge });
 *   const run = await h.trigger("demo/go", { x: 1 });   // send + wait for the run to finish
 */
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { createTestDb, type TestDb } from "../../db/testing";
import { env } from "../../env";
import { createLogger, setLogLevel } from "../../lib/log";
import type { ExecutionDetail } from "./admin";
import { manualClock, type ManualClock } from "./clock";
import { createExecutor, type Executor } from "./executor";
import type { ExecutorOptions } from "./options";
import type { FetchHandler } from "./server";
import {
  inProcessTransport,
  type ServeHandler,
  type TransportRequest,
  type TransportResponse,
} from "./transport";
import type { ExecutorExecutionStatus } from "../../db/schema/executor";

export const TEST_APP_URL = "http://app.test/api/inngest";
export const TEST_EXECUTOR_URL = "http://executor.test";

export interface ExecutorBridge {
  fetch: typeof fetch;
  attach(handler: FetchHandler): void;
}

/** A `fetch` for the SDK client that is answered by whichever executor is attached. */
export function executorBridge(): ExecutorBridge {
  let target: FetchHandler | undefined;
  return {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!target) throw new Error("no executor attached to this bridge");
      return target(new Request(input, init));
    }) as typeof fetch,
    attach: (h) => {
      target = h;
    },
  };
}

const silent = { info() {}, warn() {}, error() {}, debug() {} };

/** An Inngest client in dev mode (or cloud mode with `signingKey`) talking to the bridge. */
export function testClient(
  id: string,
  bridge: ExecutorBridge,
  opts: { signingKey?: string; eventKey?: string } = {},
) {
  return new Inngest({
    id,
    isDev: !opts.signingKey,
    baseUrl: TEST_EXECUTOR_URL,
    fetch: bridge.fetch,
    logger: silent,
    ...(opts.signingKey
      ? { signingKey: opts.signingKey, eventKey: opts.eventKey ?? "test-event-key" }
      : {}),
  });
}

export interface Harness {
  executor: Executor;
  db: TestDb;
  clock: ManualClock;
  client: Inngest.Any;
  /** Sends one event through the SDK client; returns the event id. */
  send(name: string, data?: Record<string, unknown>, extra?: { id?: string }): Promise<string>;
  /** The runs an event started (waits until `count` exist). */
  executionsFor(eventId: string, count?: number): Promise<string[]>;
  waitForExecution(
    runId: string,
    statuses?: ExecutorExecutionStatus[],
    timeoutMs?: number,
  ): Promise<ExecutionDetail>;
  /** Sends an event and waits for the single run it starts to finish. */
  trigger(name: string, data?: Record<string, unknown>): Promise<ExecutionDetail>;
  /** Polls `check` until it returns a value other than undefined/false (state, never fixed sleeps). */
  until<T>(
    check: () => Promise<T | undefined | false> | T | undefined | false,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  close(): Promise<void>;
}

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs: number,
  intervalMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface HarnessOptions {
  client: Inngest.Any;
  functions: Parameters<typeof serve>[0]["functions"];
  bridge: ExecutorBridge;
  /** Share a database (e.g. two executors on one database); the harness then does not close it. */
  db?: TestDb;
  label?: string;
  executor?: Partial<ExecutorOptions>;
  /** Sync at start (default true). */
  sync?: boolean;
  /** Share a clock between harnesses (two executors on one database). */
  clock?: ManualClock;
  /** Run the executor's cron scheduler (default false: tests trigger what they need). */
  cron?: boolean;
  /** Sees every request the executor sends to the app and the app's answer (protocol tests). */
  onCall?: (req: TransportRequest, res: TransportResponse) => void;
}

export async function startHarness(o: HarnessOptions): Promise<Harness> {
  setLogLevel("silent");
  const db = o.db ?? (await createTestDb(o.label ?? "exec"));
  const clock = o.clock ?? manualClock();
  const handler = serve({ client: o.client, functions: o.functions }) as unknown as ServeHandler;
  const executor = createExecutor({
    db,
    appUrls: [TEST_APP_URL],
    transport: o.onCall
      ? async (req) => {
          const res = await inProcessTransport(handler)(req);
          o.onCall!(req, res);
          return res;
        }
      : inProcessTransport(handler),
    clock,
    log: createLogger({ component: "executor-test" }),
    backoff: (attempt) => 20 * attempt,
    pollIntervalMs: 50,
    leaseMs: 5_000,
    requestTimeoutMs: 15_000,
    // SLUICE_EXECUTOR_CHECKPOINTING=false runs the suites in the SDK's classic one-request-per-step mode.
    checkpointing: env.SLUICE_EXECUTOR_CHECKPOINTING,
    ...o.executor,
  });
  o.bridge.attach(executor.fetch);
  await executor.start({ syncInBackground: false, cron: o.cron ?? false });
  if (o.sync !== false) await executor.sync();

  const until = <T>(
    check: () => Promise<T | undefined | false> | T | undefined | false,
    what: string,
    timeoutMs = 10_000,
  ) => pollUntil(check, what, timeoutMs, 10);

  const h: Harness = {
    executor,
    db,
    clock,
    client: o.client,
    async send(name, data = {}, extra = {}) {
      const { ids } = await o.client.send({ name, data, ...extra });
      return ids[0]!;
    },
    async executionsFor(eventId, count = 1) {
      return until(async () => {
        const runs = await executor.admin.listExecutions({ eventId });
        return runs.length >= count ? runs.map((r) => r.id).reverse() : undefined;
      }, `${count} run(s) for event ${eventId}`);
    },
    waitForExecution: (runId, statuses, timeoutMs = 10_000) =>
      executor.admin.waitForExecution(runId, { statuses, timeoutMs }),
    async trigger(name, data = {}) {
      const eventId = await h.send(name, data);
      const [runId] = await h.executionsFor(eventId);
      return h.waitForExecution(runId!);
    },
    until,
    async close() {
      await executor.stop();
      if (!o.db) await db.close();
    },
  };
  return h;
}
