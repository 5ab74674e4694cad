/**
 * What every executor module receives: the database, the clock, the logger, resolved options, the
 * function registry and the local wake-up signal. A plain record of dependencies — the behaviour
 * lives in small modules of functions (queue, runs, ops, pauses, events, …), not in a class.
 */
import type { Db, DbDriver, Tx } from "../../db/client";
import { pgError } from "../../db/errors";
import type { Logger } from "../../lib/log";
import type { Clock } from "./clock";
import type { ResolvedOptions } from "./options";
import type { Registry } from "./registry";

export interface ExecutorContext {
  db: Db;
  driver: DbDriver;
  clock: Clock;
  log: Logger;
  opts: ResolvedOptions;
  registry: Registry;
  /** Distinguishes this process's leases and logs from another executor's on the same database. */
  instanceId: string;
  /** Asks the local worker to look for due jobs now, or at `at` (schedule-clock ms). */
  wake(at?: number): void;
  /** Local listeners for finished runs (tests and the admin API wait on them). */
  notifyExecutionFinished(runId: string): void;
}

/** One database transaction plus the schedule time it runs at. */
export interface TxCtx {
  tx: Tx;
  ex: ExecutorContext;
  /** Schedule-clock time at the start of the transaction (ms). */
  now: number;
  /** Runs after a successful commit (wake-ups, notifications); never on rollback. */
  afterCommit(fn: () => void): void;
}

const RETRYABLE = new Set(["40001", "40P01"]); // serialization failure, deadlock

/**
 * Runs `fn` in one transaction. Serialization failures and deadlocks (possible between two
 * executors on one Postgres) are retried a few times; every other error propagates.
 */
export async function inTx<T>(ex: ExecutorContext, fn: (c: TxCtx) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const hooks: Array<() => void> = [];
    try {
      const result = await ex.db.transaction(async (tx) =>
        fn({ tx, ex, now: ex.clock.now(), afterCommit: (h) => hooks.push(h) }),
      );
      for (const h of hooks) h();
      return result;
    } catch (e) {
      const code = pgError(e)?.code;
      if (code && RETRYABLE.has(code) && attempt < 5) {
        ex.log.debug("transaction retried", { code, attempt });
        continue;
      }
      throw e;
    }
  }
}
