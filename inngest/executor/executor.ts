/**
 * Composition root: `createExecutor(options)` wires the registry, worker, cron scheduler, HTTP
 * handler and admin API around one database. Nothing runs until `start()`.
 */
import { afterCommit } from "../../db/after-commit";
import type { Tx } from "../../db/client";
import { newId } from "../../lib/ids";
import { createAdminApi, type AdminApi } from "./admin";
import { inTx, type ExecutorContext } from "./context";
import { startCron, type CronScheduler } from "./cron";
import { ingestEvents, type EventPayload } from "./events";
import { resolveOptions, type ExecutorOptions } from "./options";
import { pruneExpired, releaseAllLeases } from "./queue";
import { createRegistry, syncApp, type SyncResult } from "./registry";
import { createHttpHandler, listen, type FetchHandler } from "./server";
import { startWorker, type Worker } from "./worker";

export interface StartOptions {
  /** Listen on this port (0 = any free port). Omit to run without a socket (in-process tests). */
  port?: number;
  /** Interface to bind; default 127.0.0.1 (the executor is not meant to be public). */
  host?: string;
  /** Sync `appUrls` in the background after start, retrying while the app is not up (default true). */
  syncInBackground?: boolean;
  /** Start the cron scheduler loop (default true; tests may scan by hand). */
  cron?: boolean;
}

export interface Executor {
  readonly ctx: ExecutorContext;
  readonly admin: AdminApi;
  /** The HTTP surface as a fetch handler (use as the SDK client's `fetch` in in-process tests). */
  readonly fetch: FetchHandler;
  /** The listening origin after `start({ port })`, e.g. `http://127.0.0.1:8288`. */
  readonly url: string | undefined;
  start(opts?: StartOptions): Promise<void>;
  stop(): Promise<void>;
  /** In-band sync of the given (or configured) serve URLs. */
  sync(urls?: string[]): Promise<SyncResult[]>;
  /** The event API in-process: stores and routes events, returns their ids. */
  send(events: unknown | unknown[]): Promise<string[]>;
  /**
   * The event API inside the caller's open transaction, for an app that shares the executor's
   * database (embedded): the events are stored and routed with the caller's writes, vanish with
   * its rollback, and the worker is woken after its commit. Undefined (nothing written) when the
   * executor is not running or an event would trigger no synced function yet: the caller then
   * sends it later through the event API, as before. `waitsOnly`: events no function is meant to
   * trigger (workflow events: only `waitForEvent` pauses match them), so no synced function is needed.
   */
  sendInTransaction(
    tx: Tx,
    events: EventPayload[],
    opts?: { waitsOnly?: boolean },
  ): Promise<string[] | undefined>;
  /** Runs a cron scan now (normally on its own timer). */
  scanCron(): Promise<number>;
  /** Resolves once the start-up background sync has finished (at once if there is none). */
  synced(): Promise<void>;
}

export function createExecutor(options: ExecutorOptions): Executor {
  const resolved = resolveOptions(options);
  const { clock, log, ...opts } = resolved;
  const finishListeners = new Set<(runId: string) => void>();
  let worker: Worker | undefined;
  let cron: CronScheduler | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let started: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let backgroundSync: Promise<void> | undefined;
  let resyncTimer: NodeJS.Timeout | undefined;
  let maintenanceTimer: NodeJS.Timeout | undefined;
  const instanceId = newId("exe");

  const ctx: ExecutorContext = {
    db: options.db.db,
    driver: options.db.driver,
    clock,
    log: log.child({ executor: instanceId }),
    opts,
    registry: createRegistry(),
    instanceId,
    wake: (at) => worker?.wake(at),
    notifyExecutionFinished: (runId) => {
      for (const l of finishListeners) l(runId);
    },
  };
  const admin = createAdminApi(ctx, (listener) => {
    finishListeners.add(listener);
    return () => finishListeners.delete(listener);
  });
  const ready = () => started ?? Promise.reject(new Error("the executor is not started"));
  const fetch = createHttpHandler(ctx, admin, ready);

  async function syncWithRetry(urls: string[]) {
    for (const url of urls) {
      for (let attempt = 0; !stopping; attempt++) {
        try {
          await syncApp(ctx, url);
          break;
        } catch (e) {
          const delays = opts.syncRetryDelaysMs;
          const delay = delays[Math.min(attempt, delays.length - 1)]!;
          ctx.log[attempt < 3 ? "info" : "warn"]("app not synced yet; retrying", {
            url,
            attempt,
            retryInMs: delay,
            error: (e as Error).message,
          });
          await new Promise((r) => setTimeout(r, delay).unref?.());
        }
      }
    }
  }

  const executor: Executor = {
    ctx,
    admin,
    fetch,
    get url() {
      return server?.url;
    },
    synced: async () => {
      await started;
      await backgroundSync;
    },
    start(startOpts = {}) {
      started ??= (async () => {
        if (startOpts.port !== undefined) {
          server = await listen(() => fetch, startOpts.port, startOpts.host ?? "127.0.0.1");
        }
        await ctx.registry.refresh(ctx.db);
        if (opts.releaseLeasesOnStart) {
          const n = await releaseAllLeases(ctx);
          if (n) ctx.log.info("released leases left by a previous process", { jobs: n });
        }
        const startWork = () => {
          if (stopping) return;
          worker = startWorker(ctx);
          cron = startCron(ctx, { autoStart: startOpts.cron !== false });
        };
        ctx.log.info("executor started", {
          url: server?.url,
          driver: ctx.driver,
          apps: opts.appUrls,
        });
        if (startOpts.syncInBackground !== false && opts.appUrls.length) {
          // Jobs left by a previous process may name this app at an old URL (another port): none
          // runs before the first sync has stored where the app is now.
          backgroundSync = syncWithRetry(opts.appUrls);
          void backgroundSync.then(startWork, startWork);
        } else startWork();
        if (opts.resyncIntervalMs && opts.appUrls.length) {
          resyncTimer = setInterval(() => {
            for (const url of opts.appUrls) {
              syncApp(ctx, url, { onlyIfChanged: true }).catch((e) =>
                ctx.log.debug("periodic re-sync failed", { url, error: (e as Error).message }),
              );
            }
          }, opts.resyncIntervalMs);
          resyncTimer.unref?.();
        }
        maintenanceTimer = setInterval(() => {
          pruneExpired(ctx).catch((e) => ctx.log.warn("executor maintenance failed", { err: e }));
        }, 10 * 60_000);
        maintenanceTimer.unref?.();
      })();
      return started;
    },
    stop() {
      stopping ??= (async () => {
        cron?.stop();
        clearInterval(resyncTimer);
        clearInterval(maintenanceTimer);
        await worker?.stop();
        await server?.close();
        await backgroundSync?.catch(() => undefined);
        ctx.log.info("executor stopped");
      })();
      return stopping;
    },
    sync: (urls) => admin.sync(urls),
    async send(events) {
      await ready();
      const list = Array.isArray(events) ? events : [events];
      return inTx(ctx, (c) => ingestEvents(c, list));
    },
    async sendInTransaction(tx, events, opts) {
      if (!started || stopping || !worker) return undefined;
      if (!opts?.waitsOnly && events.some((e) => ctx.registry.forEvent(e.name).length === 0))
        return undefined;
      return ingestEvents(
        { tx, ex: ctx, now: ctx.clock.now(), afterCommit: (fn) => afterCommit(tx, fn) },
        events,
      );
    },
    scanCron: () => (cron ? cron.scan() : Promise.reject(new Error("the executor is not started"))),
  };
  return executor;
}
