import { afterAll } from "vitest";
import { prepareEngine, restoreEngineEnv } from "./engines";

// Own ports, Redis index and databases (see engines.ts): files run side by side.
const prepared = prepareEngine("dev", {
  app: 8510,
  server: { base: 8511, grpc: 50511 },
  redisDb: 1,
});
const { defineConformance } = await import("./scenarios");
defineConformance(prepared);
afterAll(() => restoreEngineEnv());
