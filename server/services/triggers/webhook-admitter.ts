import "server-only";
import { admitWebhookDeliveries, type AdmitterDeps } from "./admit-webhook-deliveries";

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
 * batch, so batches grow with the load. Errors are logged and retried; the loop never dies.
 *
 * Accepting comes first: after a batch the loop pauses `yieldRatio` × the batch's duration (at
 * most 1 s) before the next one, so under a sustained overload the admitter takes at most
 * 1 / (1 + yieldRatio) of the time, the inbox absorbs the rest and batches grow. Without the
 * pause, one-row batches chased every accept (on PGlite, one connection, each accept then
 * waited behind a whole run creation: ~55 accepts/s instead of ~300).
 */
export function startWebhookAdmitter(
  deps: AdmitterDeps & { pollMs?: number; batchSize?: number; yieldRatio?: number },
): AdmitterHandle {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let draining = false; // drain() wants the backlog gone: no pauses
  const yieldRatio = deps.yieldRatio ?? 1;
  const log = deps.log.child({ component: "webhook-admitter" });
  const pass = async () => {
    do {
      again = false;
      try {
        while (!stopped) {
          const started = performance.now();
          if ((await admitWebhookDeliveries(deps, { limit: deps.batchSize })) === 0) break;
          if (yieldRatio > 0 && !draining) {
            const pause = Math.min(1_000, (performance.now() - started) * yieldRatio);
            await new Promise((r) => setTimeout(r, pause));
          }
        }
      } catch (e) {
        log.error("webhook admitter pass failed", { err: e });
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
  listeners.add(kick);
  const timer = setInterval(kick, deps.pollMs ?? 1_000);
  timer.unref?.();
  kick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      listeners.delete(kick);
      await running;
    },
    async drain() {
      draining = true;
      try {
        kick();
        while (running) await running;
      } finally {
        draining = false;
      }
    },
  };
}
