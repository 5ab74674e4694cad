import "server-only";
import { getDb } from "@/db";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import type { Keys } from "@/server/keys";
import { getRuntime } from "@/server/runtime";
import type { ServiceConfig } from "@/server/services/context";

export interface EngineRuntime {
  db: Db;
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
}

/** What the engine's durable step bodies run with: the process database and configuration. */
export async function engineRuntime(): Promise<EngineRuntime> {
  const rt = getRuntime();
  return {
    db: await getDb(),
    keys: rt.keys,
    config: rt.config,
    log: rt.log.child({ component: "engine" }),
  };
}
