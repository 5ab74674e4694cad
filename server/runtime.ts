import "server-only";
import path from "node:path";
import { env, publicUrl } from "@/env";
import { createLogger, setLogLevel, type Logger } from "@/lib/log";
import { keysFromMaster, loadOrCreateMasterSecret, type Keys } from "./keys";
import type { ServiceConfig } from "./services/context";

export interface Runtime {
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
}

const g = globalThis as typeof globalThis & { __sluiceRuntime?: Runtime };

/** Process-wide configuration for services, built once from env.ts (lazily: never at build time). */
export function getRuntime(): Runtime {
  if (g.__sluiceRuntime) return g.__sluiceRuntime;
  setLogLevel(env.LOG_LEVEL);
  const master = env.SLUICE_SECRET ?? loadOrCreateMasterSecret(env.SLUICE_DATA_DIR);
  const runtime: Runtime = {
    keys: keysFromMaster(master),
    config: {
      openSignup: env.SLUICE_OPEN_SIGNUP,
      publicUrl: publicUrl(),
      maxActiveRunsPerUser: env.SLUICE_MAX_ACTIVE_RUNS_PER_USER,
      maxActiveRunsPerWorkspace: env.SLUICE_MAX_ACTIVE_RUNS_PER_WORKSPACE,
      scheduleMinIntervalSeconds: env.SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS,
      authLockBaseSeconds: env.SLUICE_AUTH_LOCK_BASE_SECONDS,
      defaultPlan: env.SLUICE_DEFAULT_PLAN,
      engineVersion: env.SLUICE_ENGINE_VERSION,
      repositoryCacheDir: path.resolve(env.SLUICE_DATA_DIR, "repository-cache"),
    },
    log: createLogger({ svc: "sluice" }),
  };
  g.__sluiceRuntime = runtime;
  return runtime;
}
