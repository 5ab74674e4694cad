import "server-only";
import path from "node:path";
import { env, publicUrl, type Env } from "@/env";
import { createLogger, setLogLevel, type Logger } from "@/lib/log";
import { keysFromMaster, loadOrCreateMasterSecret, type Keys } from "./keys";
import type { EngineConfig, ServiceConfig } from "./services/context";

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
      engine: engineConfig(env),
      scriptSandbox: {
        mode: env.SLUICE_SCRIPT_SANDBOX,
        // Masked should a system folder the sandbox shows contain them (an app under /usr/src).
        hiddenPaths: [path.resolve(env.SLUICE_DATA_DIR), process.cwd()],
      },
    },
    log: createLogger({ svc: "sluice" }),
  };
  g.__sluiceRuntime = runtime;
  return runtime;
}

const DEV_SERVER_URL = "http://localhost:8288";
const CLOUD_API_URL = "https://api.inngest.com";

/**
 * Where the durable engine is, resolved the way the Inngest SDK resolves it: INNGEST_DEV as a
 * boolean or the Dev Server's URL, INNGEST_BASE_URL over both, Inngest Cloud otherwise.
 */
export function engineConfig(e: Env): EngineConfig {
  if (e.SLUICE_EXECUTOR === "embedded") return { kind: "embedded" };
  const flag = e.INNGEST_DEV?.trim().toLowerCase();
  const devUrl = flag && !["1", "true", "0", "false"].includes(flag) ? e.INNGEST_DEV : undefined;
  const isDev = flag === "1" || flag === "true" || devUrl !== undefined;
  return {
    kind: "inngest",
    baseUrl: (e.INNGEST_BASE_URL ?? devUrl ?? (isDev ? DEV_SERVER_URL : CLOUD_API_URL)).replace(
      /\/+$/,
      "",
    ),
    ...(isDev || !e.INNGEST_SIGNING_KEY ? {} : { signingKey: e.INNGEST_SIGNING_KEY }),
    ...(e.SLUICE_INNGEST_DASHBOARD_URL ? { dashboardUrl: e.SLUICE_INNGEST_DASHBOARD_URL } : {}),
    ...(!e.INNGEST_BASE_URL && !isDev ? { isCloud: true } : {}),
  };
}
