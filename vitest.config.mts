import path from "node:path";
import { defineConfig } from "vitest/config";

// Three projects: pure unit tests, database tests on PGlite (always), and the same database
// tests on a real Postgres when TEST_DATABASE_URL is set (CI sets it; each file gets a fresh DB),
// except `onceTests` below, which then run on Postgres only.
const dbTests = [
  "server/**/*.test.ts",
  "inngest/**/*.test.ts",
  "db/**/*.test.ts",
  "app/**/*.test.ts",
];
// Run once, not on both drivers: on Postgres when TEST_DATABASE_URL is set, else on PGlite.
// - The HTTP, tRPC, CLI and MCP surfaces (app/**, server/trpc/**): the authorization matrices, the
//   HTTP fuzzer, the docs examples and the API tests check routing, validation and access above the
//   services, and the services they call run on both drivers in their own tests (server/services,
//   inngest, db). On PGlite they took 11 of the suite's 45 minutes on the 2-core CI machine.
// - The parallel-stalls suite: two executors on one database, which only Postgres deployments have
//   (PGlite is one process per data folder).
const onceTests = [
  "app/**/*.test.ts",
  "server/trpc/**/*.test.ts",
  "inngest/run-driver/parallel-stalls.test.ts",
];
// The conformance suite (inngest/conformance) runs once, in its own project: its real-engine files
// start their own Inngest servers, and the app side uses Postgres when TEST_DATABASE_URL is set.
const conformanceTests = ["inngest/conformance/**/*.test.ts"];
const alias = {
  "@": path.resolve(import.meta.dirname, "."),
  // "server-only" throws outside a React Server bundle; under vitest it is a no-op.
  "server-only": path.resolve(import.meta.dirname, "scripts/empty-module.ts"),
};
const shared = {
  alias,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  environment: "node" as const,
  // Tests never touch a real data folder or generate keys on disk.
  env: {
    SLUICE_SECRET: "test-secret-test-secret-test-secret-0123",
    SLUICE_DATA_DIR: "/tmp/sluice-vitest-data",
    LOG_LEVEL: "warn",
  },
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          ...shared,
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "bin/**/*.test.ts",
            "components/**/*.test.ts",
            "scripts/**/*.test.ts",
          ],
        },
      },
      {
        resolve: { alias },
        test: {
          ...shared,
          name: "pglite",
          include: dbTests,
          exclude: [...conformanceTests, ...(process.env.TEST_DATABASE_URL ? onceTests : [])],
          env: { ...shared.env, SLUICE_TEST_DB: "pglite" },
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              resolve: { alias },
              test: {
                ...shared,
                name: "postgres",
                include: dbTests,
                exclude: conformanceTests,
                env: { ...shared.env, SLUICE_TEST_DB: "postgres" },
              },
            },
          ]
        : []),
      {
        resolve: { alias },
        test: {
          ...shared,
          name: "conformance",
          include: conformanceTests,
          env: {
            ...shared.env,
            SLUICE_TEST_DB: process.env.TEST_DATABASE_URL ? "postgres" : "pglite",
          },
        },
      },
    ],
  },
});
