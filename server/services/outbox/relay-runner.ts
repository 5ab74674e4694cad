import "server-only";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import { relayOutboxOnce, type OutboxDeliver } from "./relay-outbox";
import { onOutboxWake } from "./relay-signal";

export interface RelayHandle {
  stop(): Promise<void>;
  /** Resolves once everything due right now was attempted (tests). */
  drain(): Promise<void>;
}

/**
 * The outbox relay loop: delivers due messages whenever this process commits some (wake-up) and
 * every `pollMs` otherwise (other processes, retries). Errors are logged and retried; the loop
 * never dies.
 */
export function startOutboxRelay(opts: {
  db: Db;
  deliver: OutboxDeliver;
  log: Logger;
  pollMs?: number;
}): RelayHandle {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  const pass = async () => {
    do {
      again = false;
      try {
        while (!stopped && (await relayOutboxOnce(opts.db, opts.deliver, opts.log)) > 0) {
          // keep going while there is work
        }
      } catch (e) {
        opts.log.error("outbox relay pass failed", { err: e });
      }
    } while (again && !stopped);
  };
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = null;
    });
  };
  const unsubscribe = onOutboxWake(kick);
  const timer = setInterval(kick, opts.pollMs ?? 1_000);
  timer.unref?.();
  kick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      await running;
    },
    async drain() {
      kick();
      while (running) await running;
    },
  };
}
