import "server-only";
import { getDb } from "@/db";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import type { Keys } from "@/server/keys";
import { getRuntime } from "@/server/runtime";
import type { ServiceConfig, ServiceContext } from "@/server/services/context";

export interface StepRuntime {
  db: Db;
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
}

/** What the engine's durable step bodies run with: the process database and configuration. */
export async function stepRuntime(): Promise<StepRuntime> {
  const rt = getRuntime();
  return {
    db: await getDb(),
    keys: rt.keys,
    config: rt.config,
    log: rt.log.child({ component: "engine" }),
  };
}

type ClockGlobal = typeof globalThis & {
  __sluiceRuntimeClock?: () => number;
  __sluiceInlineAfterParallel?: boolean;
};

/**
 * Whether runs planned in this process may run a lone step inline after parallel ones (RunPlan
 * `inlineAfterParallel`): only the embedded executor's default scheduling allows it. Tests that
 * run the embedded executor as the real Inngest schedules (`parallelism: "inngest"`) say so here.
 */
export function inlineAfterParallel(config: ServiceConfig): boolean {
  const forced = (globalThis as ClockGlobal).__sluiceInlineAfterParallel;
  if (forced !== undefined) return forced;
  return (config.engine?.kind ?? "embedded") === "embedded";
}

export function setInlineAfterParallel(value: boolean | undefined): void {
  (globalThis as ClockGlobal).__sluiceInlineAfterParallel = value;
}

/**
 * The engine's notion of "now". Real time in production; tests align it with the executor's
 * manual clock so deadlines and expiries computed here agree with the executor's timers.
 */
export function runtimeNow(): Date {
  const clock = (globalThis as ClockGlobal).__sluiceRuntimeClock;
  return new Date(clock ? clock() : Date.now());
}

export function setRuntimeClock(now: (() => number) | undefined): void {
  (globalThis as ClockGlobal).__sluiceRuntimeClock = now;
}

/** A service context for the engine acting on its own behalf (system actor "engine"). */
export async function runtimeServiceContext(workspaceId?: string): Promise<ServiceContext> {
  const rt = await stepRuntime();
  return {
    db: rt.db,
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => runtimeNow(),
    actor: { type: "system", name: "engine" },
    ...(workspaceId ? { workspace: { id: workspaceId, role: "owner" as const } } : {}),
  };
}
