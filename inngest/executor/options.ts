/**
 * Executor configuration. Everything has a production default; tests shrink the timings and pass
 * a manual clock and an in-process transport.
 */
import type { DbDriver, Db } from "../../db/client";
import { createLogger, type Logger } from "../../lib/log";
import { systemClock, type Clock } from "./clock";
import { httpTransport, type Transport } from "./transport";

/**
 * Lease on a claimed job. Short, so the work of an instance that died moves to another within
 * seconds (issue 14: failover within 10 s); the heartbeat keeps long requests leased.
 */
export const DEFAULT_LEASE_MS = 8_000;

export interface ExecutorOptions {
  /** The database (the app passes `getDbHandle()`'s handle; tests `createTestDb()`). */
  db: { db: Db; driver: DbDriver };
  /** Serve URLs synced at start and on `sync()` (the app: `http://127.0.0.1:${PORT}/api/inngest`). */
  appUrls?: string[];
  /** How SDK calls reach the app. Default: HTTP `fetch` to the function's URL. */
  transport?: Transport;
  /** Signs requests to the app, verifies its responses, and guards `/fn/register` and `/admin`. */
  signingKey?: string;
  signingKeyFallback?: string;
  /** When set, `POST /e/:key` requires this key. */
  eventKey?: string;
  clock?: Clock;
  log?: Logger;
  /** Jobs one executor runs at once (SDK calls in flight). */
  concurrency?: number;
  /** How often the worker looks for work it was not told about (other processes, timers). */
  pollIntervalMs?: number;
  /** Lease on a claimed job; renewed every third of it while the job runs. */
  leaseMs?: number;
  /** Per-request timeout of an SDK call. */
  requestTimeoutMs?: number;
  /** Delay before retry `attempt` (1-based) of a step or function. Default: 15s, 30s, 1m, … 2h, plus jitter. */
  backoff?: (attempt: number) => number;
  /** A cron tick missed by at most this much (downtime) still fires once; older ones are skipped. */
  cronCatchUpMs?: number;
  /** A run fails when it memoises more steps than this (Inngest's default limit). */
  maxStepsPerRun?: number;
  /**
   * Let the SDK run consecutive steps inline and checkpoint them (`POST /v1/checkpoint/:runId/async`)
   * instead of answering after each one, as Inngest does by default (README "Checkpointing").
   * Off: every step costs one request again (the SDK's classic async mode). Default true.
   */
  checkpointing?: boolean;
  /**
   * How parallel steps are scheduled (README "Parallelism modes"). `"coalesced"` (default): one
   * discovery per run after siblings settle, re-reports dropped — forgiving. `"inngest"`: the real
   * Inngest server's rules (v1.43: pending set replaced by each multi-step response, discovery only
   * when it is empty or the step is race-mode, idempotent job ids, concurrent discoveries), so tests
   * catch the hangs and repeated steps an app would hit there.
   */
  parallelism?: Parallelism;
  /**
   * Clear all leases at start. Safe only when no other executor can share the database — true for
   * PGlite (one opener per data folder), so it is the default there: a restart after a crash
   * resumes in-flight jobs at once instead of waiting for their leases to expire.
   */
  releaseLeasesOnStart?: boolean;
  /** Delays between attempts of the background sync at start (the app may not be listening yet). */
  syncRetryDelaysMs?: number[];
  /**
   * Re-sync `appUrls` this often (development: functions added or changed by a hot reload become
   * known without a restart). Unchanged configs are not rewritten. Off by default.
   */
  resyncIntervalMs?: number;
}

export type Parallelism = "coalesced" | "inngest";

export interface ResolvedOptions {
  appUrls: string[];
  transport: Transport;
  signingKeys: string[];
  eventKey?: string;
  concurrency: number;
  pollIntervalMs: number;
  leaseMs: number;
  requestTimeoutMs: number;
  backoff: (attempt: number) => number;
  cronCatchUpMs: number;
  maxStepsPerRun: number;
  checkpointing: boolean;
  parallelism: Parallelism;
  releaseLeasesOnStart: boolean;
  syncRetryDelaysMs: number[];
  resyncIntervalMs?: number;
}

const BACKOFF_TABLE_MS = [
  15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 1_200e3, 2_400e3, 3_600e3, 7_200e3,
];

/** Inngest's retry schedule: 15 s doubling up to 2 h, plus up to 30 s of jitter. */
export function defaultBackoff(attempt: number): number {
  const base = BACKOFF_TABLE_MS[Math.min(Math.max(attempt, 1), BACKOFF_TABLE_MS.length) - 1]!;
  return base + Math.floor(Math.random() * 30_000);
}

export function resolveOptions(
  o: ExecutorOptions,
): ResolvedOptions & { clock: Clock; log: Logger } {
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  return {
    appUrls: o.appUrls ?? [],
    transport: o.transport ?? httpTransport(),
    signingKeys: [o.signingKey, o.signingKeyFallback].filter((k): k is string => Boolean(k)),
    eventKey: o.eventKey,
    concurrency: o.concurrency ?? 16,
    pollIntervalMs: o.pollIntervalMs ?? 500,
    leaseMs,
    requestTimeoutMs: o.requestTimeoutMs ?? 300_000,
    backoff: o.backoff ?? defaultBackoff,
    cronCatchUpMs: o.cronCatchUpMs ?? 60_000,
    maxStepsPerRun: o.maxStepsPerRun ?? 1_000,
    checkpointing: o.checkpointing ?? true,
    parallelism: o.parallelism ?? "coalesced",
    releaseLeasesOnStart: o.releaseLeasesOnStart ?? o.db.driver === "pglite",
    syncRetryDelaysMs: o.syncRetryDelaysMs ?? [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000],
    resyncIntervalMs: o.resyncIntervalMs,
    clock: o.clock ?? systemClock,
    log: o.log ?? createLogger({ component: "executor" }),
  };
}
