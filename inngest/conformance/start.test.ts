import { afterAll } from "vitest";
import { prepareEngine, restoreEngineEnv } from "./engines";

// Signed `inngest start` on Postgres (its own database) and Redis (its own index).
const prepared = prepareEngine("start", {
  app: 8520,
  server: { base: 8521, grpc: 50521 },
  redisDb: 2,
});
const { defineConformance } = await import("./scenarios");
defineConformance(prepared);
afterAll(() => restoreEngineEnv());
