import "server-only";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import { relayOutboxOnce, type OutboxDeliver } from "./relay-outbox";
import { relayHeartbeat } from "./relay-heartbeat";
import { onOutboxWake } from "./relay-signal";
import { startSignalledLoop } from "../background-loop";

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
  // The readiness probe reads the heartbeat: a failing pass (database gone) does not beat.
  const heartbeat = relayHeartbeat();
  const loop = startSignalledLoop({
    step: async () => {
      const more = (await relayOutboxOnce(opts.db, opts.deliver, opts.log)) > 0;
      heartbeat.beat();
      return more;
    },
    onError: (e) => opts.log.error("outbox relay pass failed", { err: e }),
    subscribe: onOutboxWake,
    pollMs: opts.pollMs ?? 1_000,
  });
  return {
    stop: async () => {
      heartbeat.stop();
      await loop.stop();
    },
    drain: () => loop.drain(),
  };
}
