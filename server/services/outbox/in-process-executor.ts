import "server-only";
import type { Tx } from "@/db/client";

/** An event as the executor's event API takes it (the message id is the event id). */
export type InProcessEvent = { id: string; name: string; data: Record<string, unknown> };

/**
 * The embedded executor, when this process hosts one on the app's own database: it can store and
 * route events inside the app's transaction (no outbox row, no relay trip). Registered at start-up
 * once the executor has synced (instrumentation, the engine test harness); absent for a real
 * Inngest. A narrow port, so services never import the executor.
 */
export interface InProcessExecutor {
  /** Undefined when it cannot take these events now: the caller uses the outbox instead. */
  sendInTransaction(
    tx: Tx,
    events: InProcessEvent[],
    opts?: { waitsOnly?: boolean },
  ): Promise<string[] | undefined>;
}

type Global = typeof globalThis & { __sluiceInProcessExecutor?: InProcessExecutor };
const g = globalThis as Global;

export function setInProcessExecutor(executor: InProcessExecutor | undefined): void {
  g.__sluiceInProcessExecutor = executor;
}

export function inProcessExecutor(): InProcessExecutor | undefined {
  return g.__sluiceInProcessExecutor;
}
