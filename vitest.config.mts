import path from "node:path";
import { defineConfig } from "vitest/config";

// Three projects: pure unit tests, database tests on PGlite (always), and the same database
// tests on a real Postgres when TEST_DATABASE_URL is set (CI sets it; each file gets a fresh DB).
const dbTests = [
  "server/**/*.test.ts",
  "inngest/**/*.test.ts",
  "db/**/*.test.ts",
  "app/**/*.test.ts",
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
          exclude: conformanceTests,
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
