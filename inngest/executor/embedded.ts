/**
 * Hosts the executor inside the Next.js server process (instrumentation.ts `register()`), per
 * shared/research/embedded-in-process.md:
 * - state lives on globalThis: Next evaluates this module 2–4 times per process, and a second
 *   executor would bind the port twice or open PGlite twice;
 * - nothing heavy at module top level, nothing at all during `next build`;
 * - the port is bound first, then the database is opened (`getDbHandle()`, the process-wide handle;
 *   never a PGlite of its own): requests arriving meanwhile wait instead of failing, so a slow
 *   migration delays the executor but does not break `inngest.send()`;
 * - the app is synced in the background, never awaited inside `register()` (that deadlocks: Next
 *   holds requests until `register()` resolves);
 * - HTTP requests are dispatched through globalThis, so a dev HMR edit of the routing code applies
 *   without a restart (the worker loop keeps the code it started with);
 * - SIGTERM/SIGINT: `process.on` with an idempotent stop that closes the database and exits
 *   (`npm start` sets NEXT_MANUAL_SIG_HANDLE=1 so Next leaves the exit to us).
 */
import { closeDb, getDbHandle } from "../../db";
import { env } from "../../env";
import { createLogger, type Logger } from "../../lib/log";
import { createExecutor, type Executor } from "./executor";
import { createHttpHandler, listen, type FetchHandler } from "./server";

interface EmbeddedState {
  ready: Promise<Executor>;
  stop(): Promise<void>;
}

type Global = typeof globalThis & {
  __sluiceExecutor?: EmbeddedState;
  __sluiceExecutorRoutes?: (executor: Executor) => FetchHandler;
  __sluiceShutdown?: { installed: boolean; stopping?: Promise<void> };
};
const g = globalThis as Global;

// Each evaluation of this module installs its routing code; the listener always uses the newest.
g.__sluiceExecutorRoutes = (ex) => createHttpHandler(ex.ctx, ex.admin, async () => undefined);

/** The serve URL the embedded executor syncs and calls. */
export function appServeUrl(): string {
  return `http://127.0.0.1:${env.PORT}/api/inngest`;
}

/**
 * Resolves once this process's embedded executor has synced the app's functions (immediately when
 * there is no embedded executor). Events sent before a function is known would trigger nothing.
 */
export async function embeddedExecutorSynced(): Promise<void> {
  const ex = await g.__sluiceExecutor?.ready;
  await ex?.synced();
}

/** The running embedded executor, if this process hosts one (admin API for the app's UI). */
export function embeddedExecutor(): Promise<Executor> | undefined {
  return g.__sluiceExecutor?.ready;
}

/**
 * Starts the executor once per process (later calls return the same one). Returns undefined when
 * a real Inngest is configured or during `next build`.
 */
export function startEmbeddedExecutor(
  opts: { signingKey?: string } = {},
): EmbeddedState | undefined {
  if (env.SLUICE_EXECUTOR !== "embedded" || env.NEXT_PHASE === "phase-production-build")
    return undefined;
  if (g.__sluiceExecutor) return g.__sluiceExecutor;

  const log = createLogger({ component: "executor" });
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let executor: Executor | undefined;
  let stopping: Promise<void> | undefined;

  const state: EmbeddedState = {
    ready: undefined as unknown as Promise<Executor>,
    stop: () =>
      (stopping ??= (async () => {
        await server?.close();
        // In-flight calls get a moment to record their results; anything left is retried after
        // the restart (PGlite releases leases at start; Postgres leases expire).
        await Promise.race([executor?.stop(), new Promise((r) => setTimeout(r, 5_000).unref())]);
      })()),
  };
  // Set synchronously, before any await: concurrent callers must see this instance.
  g.__sluiceExecutor = state;

  state.ready = (async () => {
    server = await listen(
      () => async (req) => {
        const ex = await state.ready;
        return g.__sluiceExecutorRoutes!(ex)(req);
      },
      env.SLUICE_EXECUTOR_PORT,
      "127.0.0.1",
    );
    const handle = await getDbHandle();
    executor = createExecutor({
      db: handle,
      appUrls: [appServeUrl()],
      signingKey: opts.signingKey ?? env.INNGEST_SIGNING_KEY,
      signingKeyFallback: env.INNGEST_SIGNING_KEY_FALLBACK,
      eventKey: env.INNGEST_EVENT_KEY,
      concurrency: env.SLUICE_EXECUTOR_CONCURRENCY,
      requestTimeoutMs: env.SLUICE_EXECUTOR_REQUEST_TIMEOUT_MS,
      checkpointing: env.SLUICE_EXECUTOR_CHECKPOINTING,
      leaseMs: env.SLUICE_EXECUTOR_LEASE_MS,
      // In development a hot reload can add or change functions: pick them up without a restart.
      resyncIntervalMs: env.NODE_ENV === "development" ? 3_000 : undefined,
      log,
    });
    await executor.start({ syncInBackground: true });
    warnIfUnsigned(log, opts.signingKey ?? env.INNGEST_SIGNING_KEY);
    log.info("embedded executor listening", { url: server.url, app: appServeUrl() });
    return executor;
  })();
  state.ready.catch(async (e) => {
    log.error("embedded executor failed to start; retrying in 5 s", { err: e });
    await server?.close();
    // Never cache a failed start (a port in use, a database that is not reachable yet): retry.
    if (g.__sluiceExecutor === state) g.__sluiceExecutor = undefined;
    if (!stopping && !g.__sluiceShutdown?.stopping)
      setTimeout(() => startEmbeddedExecutor(opts), 5_000).unref();
  });
  return state;
}

function warnIfUnsigned(log: Logger, key: string | undefined) {
  if (env.NODE_ENV === "production" && !key) {
    log.warn(
      "INNGEST_SIGNING_KEY is not set: /api/inngest accepts unsigned calls (dev mode). Set it in production so only the executor can drive functions.",
    );
  }
}

/**
 * SIGTERM/SIGINT: stop the executor (if any), close the database, exit. Installed once per
 * process; `process.on` rather than `once`, because `next dev` can deliver two signals and the
 * second must not hit the default handler mid-close.
 */
export function installShutdownHandlers(): void {
  const s = (g.__sluiceShutdown ??= { installed: false });
  if (s.installed) return;
  s.installed = true;
  const shutdown = (signal: string) => {
    s.stopping ??= (async () => {
      const log = createLogger({ component: "shutdown" });
      log.info("shutting down", { signal });
      try {
        await g.__sluiceExecutor?.stop();
        await closeDb();
      } catch (e) {
        log.error("error during shutdown", { err: e });
      } finally {
        process.exit(0);
      }
    })();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}
