import "server-only";
import { env } from "@/env";
import { applyRetention } from "@/server/services/retention/apply-retention";
import { repositoryCacheRoot } from "@/server/services/run-state/pin-run-repository";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";

/** Daily: see applyRetention (the retention windows come from the environment). */
export async function retentionBody() {
  const { db, config } = await stepRuntime();
  return applyRetention(
    db,
    runtimeNow(),
    {
      runs: env.SLUICE_RUN_RETENTION_DAYS,
      steps: env.SLUICE_STEP_RETENTION_DAYS,
      repositoryCache: env.SLUICE_REPOSITORY_CACHE_DAYS,
    },
    repositoryCacheRoot(config),
  );
}
