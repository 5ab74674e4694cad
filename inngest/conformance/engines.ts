/**
 * One harness over three engines: the embedded executor, `inngest dev`, and `inngest start`
 * (signed, Postgres + Redis). Runs are created, decided and read through the app's services and
 * tables exactly as in the engine tests; only who executes `run-workflow` changes.
 *
 * The app's Inngest client reads its configuration when `inngest/client.ts` is first evaluated,
 * so for a real engine the environment is set before any app module is imported: this module
 * imports none statically (types only), and test files import the scenario corpus dynamically
 * after `prepareEngine`.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { RunHarness } from "@/server/testing/run-harness";
import type { ExecutorOptions } from "../executor/options";
import type { RelayHandle } from "@/server/services/outbox/relay-runner";
import {
  inngestBinary,
  startInngestServer,
  type InngestServer,
  type RealMode,
  type ServerPorts,
} from "./inngest-server";

export type EngineKind = "embedded" | RealMode;

export type ConformanceHarness = Omit<RunHarness, "h" | "relay"> & {
  kind: EngineKind;
  until<T>(
    check: () => Promise<T | undefined | false>,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** The real server (dev/start). */
  server?: InngestServer;
  /** The app's serve endpoint as the real server calls it. */
  appUrl?: string;
  /** Every SDK request the app answered (real engines): method, query and status. */
  calls: { method: string; query: string; status: number }[];
  /**
   * The engine's own status of an execution (lower case: running, completed, failed, cancelled),
   * or undefined when the engine does not know it: a leaked execution stays "running".
   */
  executionStatus(executionId: string): Promise<string | undefined>;
};

export interface PreparedEngine {
  kind: EngineKind;
  /** Why the engine cannot run here (the real server is missing); undefined when it can. */
  skip?: string;
  start(label: string): Promise<ConformanceHarness>;
}

/**
 * Ports of one test file: the app host on `app`, the server on `server.base` (+1 connect gateway)
 * and `server.grpc` (+1). Each file passes its own block so files run side by side.
 */
export interface EnginePorts {
  app: number;
  server: ServerPorts;
  redisDb: number;
}

const SAVED = Symbol.for("sluice.conformance.saved-env");

/**
 * Sets the environment for `kind` (before any app module is evaluated) and returns a starter.
 * A real engine whose server is missing is skipped with the reason, unless
 * SLUICE_REQUIRE_INNGEST=1 (CI), where that is an error.
 */
export function prepareEngine(
  kind: EngineKind,
  ports?: EnginePorts,
  /** Embedded only: executor options, e.g. `{ parallelism: "inngest" }` (the real server's scheduling). */
  executor?: Partial<ExecutorOptions>,
): PreparedEngine {
  if (kind === "embedded") {
    return { kind, start: (label) => startEmbedded(label, executor) };
  }
  const found = inngestBinary();
  if ("missing" in found) {
    if (process.env.SLUICE_REQUIRE_INNGEST === "1")
      throw new Error(`SLUICE_REQUIRE_INNGEST=1 but ${found.missing}`);
    return { kind, skip: found.missing, start: () => Promise.reject(new Error(found.missing)) };
  }
  if (!ports) throw new Error(`engine ${kind} needs its own ports`);
  const serverUrl = `http://127.0.0.1:${ports.server.base}`;
  const g = globalThis as { [SAVED]?: Record<string, string | undefined> };
  g[SAVED] ??= Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]] as const));
  const signingHex = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const signingKey = `signkey-prod-${signingHex}`;
  const eventKey = `evt-${signingHex.slice(0, 16)}`;
  process.env.SLUICE_EXECUTOR = "inngest";
  process.env.INNGEST_BASE_URL = serverUrl;
  if (kind === "dev") {
    process.env.INNGEST_DEV = serverUrl;
    delete process.env.INNGEST_SIGNING_KEY;
    delete process.env.INNGEST_EVENT_KEY;
  } else {
    delete process.env.INNGEST_DEV;
    process.env.INNGEST_SIGNING_KEY = signingKey;
    process.env.INNGEST_EVENT_KEY = eventKey;
  }
  return {
    kind,
    start: (label) =>
      startReal(kind, label, found.bin, ports, { signingHex, eventKey }).catch((e) => {
        throw e;
      }),
  };
}

const ENV_KEYS = [
  "SLUICE_EXECUTOR",
  "INNGEST_BASE_URL",
  "INNGEST_DEV",
  "INNGEST_SIGNING_KEY",
  "INNGEST_EVENT_KEY",
];

/** Puts back what `prepareEngine` changed (the worker may run other files after this one). */
export function restoreEngineEnv(): void {
  const g = globalThis as { [SAVED]?: Record<string, string | undefined> };
  const saved = g[SAVED];
  if (!saved) return;
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  delete g[SAVED];
}

async function startEmbedded(
  label: string,
  executor: Partial<ExecutorOptions> = {},
): Promise<ConformanceHarness> {
  const { startRunHarness } = await import("@/server/testing/run-harness");
  const { startWebhookAdmitter } = await import("@/server/services/triggers/webhook-admitter");
  const { getRuntime } = await import("@/server/runtime");
  const { createLogger } = await import("@/lib/log");
  const e = await startRunHarness(label, {
    cron: true,
    executor: { backoff: () => 1_000, ...executor },
  });
  const admitter = startWebhookAdmitter({
    db: e.db.db,
    ...getRuntime(),
    log: createLogger({ component: "admitter-test" }),
  });
  const { executorExecutions } = await import("@/db/schema");
  const { eq } = await import("drizzle-orm");
  return {
    ...e,
    kind: "embedded",
    until: e.h.until,
    calls: [],
    async executionStatus(id) {
      const [r] = await e.db.db
        .select({ status: executorExecutions.status })
        .from(executorExecutions)
        .where(eq(executorExecutions.id, id));
      return r?.status;
    },
    async close() {
      await admitter.stop();
      await e.close();
    },
  };
}

async function startReal(
  kind: RealMode,
  label: string,
  bin: string,
  ports: EnginePorts,
  keys: { signingHex: string; eventKey: string },
): Promise<ConformanceHarness> {
  // Evaluated now, under the environment prepareEngine set.
  const { inngest } = await import("../client");
  const { functions } = await import("../functions");
  const { serve } = await import("inngest/next");
  const { setProcessDb } = await import("@/db");
  const { createTestDb } = await import("@/db/testing");
  const { createWorkspaceFixture } = await import("@/server/testing/harness");
  const { createOutboxDeliverer } = await import("@/server/services/outbox/deliver");
  const { setInProcessExecutor } = await import("@/server/services/outbox/in-process-executor");
  const { startOutboxRelay } = await import("@/server/services/outbox/relay-runner");
  const { startWebhookAdmitter } = await import("@/server/services/triggers/webhook-admitter");
  const { workflowEventHooks } = await import("@/server/boot");
  const { getRuntime } = await import("@/server/runtime");
  const { createLogger, setLogLevel } = await import("@/lib/log");
  const { runReads } = await import("@/server/testing/run-harness");
  const { pollUntil } = await import("../executor/testing");
  const { env } = await import("@/env");
  if (env.SLUICE_EXECUTOR !== "inngest")
    throw new Error("the app modules were evaluated before prepareEngine set the environment");
  setLogLevel("silent");

  const db = await createTestDb(label);
  setProcessDb(db);
  setInProcessExecutor(undefined);
  const ws = await createWorkspaceFixture(db.db, "Conformance");
  const handler = serve({ client: inngest, functions }) as unknown as Record<
    "GET" | "POST" | "PUT",
    (r: Request) => Promise<Response>
  >;
  const calls: ConformanceHarness["calls"] = [];
  const host = await hostServe(handler, ports.app, calls);
  const appUrl = `http://127.0.0.1:${ports.app}/api/inngest`;
  let server: InngestServer | undefined;
  let relay: RelayHandle | undefined;
  let admitter: { stop(): Promise<void> } | undefined;
  const close = async () => {
    await admitter?.stop();
    await relay?.stop();
    await server?.stop();
    await host.close();
    await db.close();
  };
  try {
    server = await startInngestServer({
      mode: kind,
      bin,
      ports: ports.server,
      appUrl,
      postgresUrl: process.env.TEST_DATABASE_URL,
      redisDb: ports.redisDb,
      label,
      keys,
    });
    await syncApp(appUrl, server);
    relay = startOutboxRelay({
      db: db.db,
      deliver: createOutboxDeliverer((events) => inngest.send(events), workflowEventHooks()),
      log: createLogger({ component: "outbox-test" }),
      pollMs: 50,
    });
    admitter = startWebhookAdmitter({
      db: db.db,
      ...getRuntime(),
      log: createLogger({ component: "admitter-test" }),
    });
  } catch (e) {
    await close();
    throw e;
  }
  const until = <T>(
    check: () => Promise<T | undefined | false>,
    what: string,
    timeoutMs = 30_000,
  ) => pollUntil(check, `${what} (${kind})`, timeoutMs, 25);
  const auth: Record<string, string> = server.signingKey
    ? {
        authorization: `Bearer signkey-prod-${createHash("sha256")
          .update(Buffer.from(keys.signingHex, "hex"))
          .digest("hex")}`,
      }
    : {};
  const realServer = server;
  return {
    kind,
    db,
    ws,
    server,
    appUrl,
    calls,
    until,
    async executionStatus(id) {
      const res = await fetch(`${realServer.url}/v1/runs/${id}`, { headers: auth });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { data?: { status?: string }; status?: string };
      const status = body.data?.status ?? body.status;
      return typeof status === "string" ? status.toLowerCase() : undefined;
    },
    ...runReads({ db, ws, until }),
    close,
  };
}

/**
 * Syncs the app with the server (the PUT the server itself makes at boot and on every poll) and
 * waits until the server knows its functions.
 */
async function syncApp(appUrl: string, server: InngestServer): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = "";
  while (Date.now() < deadline) {
    const res = await fetch(appUrl, { method: "PUT" }).catch((e: Error) => e);
    if (!(res instanceof Error)) {
      last = `${res.status} ${await res.text()}`;
      if (res.ok) return;
    } else last = res.message;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the app did not sync with ${server.url}: ${last}\n${server.output()}`);
}

/** The serve handler on a real port (the Next route's job in the app). */
async function hostServe(
  handler: Record<"GET" | "POST" | "PUT", (r: Request) => Promise<Response>>,
  port: number,
  calls: ConformanceHarness["calls"],
): Promise<{ close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const method = (req.method ?? "GET") as "GET" | "POST" | "PUT";
        const fn = handler[method];
        if (!fn) {
          res.statusCode = 405;
          return res.end();
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === "string") headers.set(k, v);
          else if (Array.isArray(v)) headers.set(k, v.join(", "));
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const request = new Request(`http://${req.headers.host}${req.url}`, {
          method,
          headers,
          ...(body && method !== "GET" ? { body } : {}),
        });
        const response = await fn(request);
        calls.push({
          method,
          query: (req.url ?? "").split("?")[1] ?? "",
          status: response.status,
        });
        res.statusCode = response.status;
        response.headers.forEach((v, k) => res.setHeader(k, v));
        res.end(Buffer.from(await response.arrayBuffer()));
      })().catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
