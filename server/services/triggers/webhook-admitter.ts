import "server-only";
import { startSignalledLoop } from "../background-loop";
import {
  ADMIT_BATCH,
  ADMIT_BATCH_MS,
  admitWebhookDeliveries,
  type AdmitterDeps,
} from "./admit-webhook-deliveries";

type Global = typeof globalThis & { __sluiceAdmitterWake?: Set<() => void> };
const g = globalThis as Global;
const listeners = (g.__sluiceAdmitterWake ??= new Set());

/** In-process hint that a delivery was accepted into the inbox (the admitter also polls). */
export function wakeWebhookAdmitter(): void {
  for (const l of listeners) l();
}

/**
 * How much the admitter yields to accepts per driver: PGlite runs every statement on one
 * connection in this process, so a batch stalls accepts outright; Postgres only shares the CPU.
 */
export function admitterYieldRatio(driver: "pglite" | "postgres"): number {
  return driver === "pglite" ? 3 : 1;
}

export interface AdmitterHandle {
  stop(): Promise<void>;
  /** Resolves once every delivery accepted so far was settled (tests, benchmarks). */
  drain(): Promise<void>;
}

/**
 * The webhook admitter loop, shaped like the outbox relay: a pass runs when this process accepts
 * a delivery (wake-up) and every `pollMs` otherwise (other processes, retries after an error).
 * A pass takes batches until the inbox is empty; deliveries accepted meanwhile form the next
 * batch, so batches grow with the load (up to the caps below). Errors are logged and retried;
 * the loop never dies.
 *
 * Accepting comes first: after a batch the loop pauses `yieldRatio` × the batch's duration (at
 * most 1 s) before the next one, so under a sustained overload the admitter takes at most
 * 1 / (1 + yieldRatio) of the time and the inbox absorbs the rest. Without the
 * pause, one-row batches chased every accept (on PGlite, one connection, each accept then
 * waited behind a whole run creation: ~55 accepts/s instead of ~300).
 *
 * A batch is also capped by time (`batchMs`, not when draining): however long the backlog, a
 * batch's transaction, its connection and its end-of-batch statements stay about that size; the
 * next claim is sized from what the last batch got through.
 */
export function startWebhookAdmitter(
  deps: AdmitterDeps & {
    pollMs?: number;
    batchSize?: number;
    batchMs?: number;
    yieldRatio?: number;
  },
): AdmitterHandle {
  const yieldRatio = deps.yieldRatio ?? 1;
  const batchSize = deps.batchSize ?? ADMIT_BATCH;
  let claim = batchSize;
  const log = deps.log.child({ component: "webhook-admitter" });
  return startSignalledLoop({
    async step({ draining }) {
      const started = performance.now();
      const settled = await admitWebhookDeliveries(
        deps,
        draining ? { limit: batchSize } : { limit: claim, maxMs: deps.batchMs ?? ADMIT_BATCH_MS },
      );
      if (settled === 0) return false;
      // Rows claimed but not reached are read again next time: claim about what fits in a batch.
      claim = Math.min(batchSize, Math.max(16, settled * 2));
      if (yieldRatio > 0 && !draining) {
        const pause = Math.min(1_000, (performance.now() - started) * yieldRatio);
        await new Promise((r) => setTimeout(r, pause));
      }
      return true;
    },
    onError: (e) => log.error("webhook admitter pass failed", { err: e }),
    subscribe(kick) {
      listeners.add(kick);
      return () => listeners.delete(kick);
    },
    pollMs: deps.pollMs ?? 1_000,
  });
}
