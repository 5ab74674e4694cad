import "server-only";
import { getDb, MIGRATIONS_FOLDER } from "@/db";
import { env } from "@/env";
import { embeddedExecutor, embeddedExecutorSynced } from "@/inngest/executor/embedded";
import { probeEngine, type EngineProbeTarget } from "./services/health/engine";
import { cachedProbe, checkReadiness, type Readiness } from "./services/health/readiness";
import { engineConfig } from "./runtime";

/** This process's engine as the readiness check sees it (composition: services may not import the executor). */
function engineTarget(): EngineProbeTarget {
  const engine = engineConfig(env);
  if (engine.kind === "inngest") return { kind: "inngest", baseUrl: engine.baseUrl };
  return {
    kind: "embedded",
    ready: embeddedExecutor(),
    synced: embeddedExecutorSynced,
    healthUrl: `http://127.0.0.1:${env.SLUICE_EXECUTOR_PORT}/health`,
  };
}

const g = globalThis as typeof globalThis & { __sluiceReadiness?: () => Promise<Readiness> };

/** The process's readiness, cached for a second (GET /api/ready). */
export function processReadiness(): Promise<Readiness> {
  g.__sluiceReadiness ??= cachedProbe(() =>
    checkReadiness({
      db: getDb,
      migrationsFolder: MIGRATIONS_FOLDER,
      engine: () => probeEngine(engineTarget()),
    }),
  );
  return g.__sluiceReadiness();
}

/** 200 when ready, 503 naming each failed check otherwise. */
export function readinessResponse(r: Readiness): Response {
  return Response.json(r, { status: r.status === "ready" ? 200 : 503 });
}

/** Liveness: the process answers HTTP. No I/O, so a slow database never gets the pod restarted. */
export function livenessResponse(): Response {
  return Response.json({ status: "ok" });
}
