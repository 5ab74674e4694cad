import { afterAll } from "vitest";
import { prepareEngine, restoreEngineEnv } from "./engines";

const prepared = prepareEngine("dev", {
  app: 8540,
  server: { base: 8541, grpc: 50541 },
  redisDb: 4,
});
// SLUICE_TEST_LEGACY_TAGGING=1 runs it with the tagging before issue 24 (evidence that it hangs).
if (process.env.SLUICE_TEST_LEGACY_TAGGING === "1")
  (await import("../run-driver/types")).legacyTagging.on = true;
const { defineStress } = await import("./scenarios");
defineStress(prepared, Number(process.env.SLUICE_STRESS_RUNS ?? 200));
afterAll(() => restoreEngineEnv());
