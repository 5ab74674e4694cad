/**
 * Reliability suite (c), full scale: 10,000 generated definitions (mostly broken on purpose,
 * lib/workflow/definition-fuzz.arbitraries.ts) through save-draft + publish on a database, each
 * checked by the same case as the vitest suite (server/testing/publish-fuzz.ts): a version whose
 * hash ignores key order, or a domain error with a path on every issue — never anything else.
 * PGlite in memory by default; BENCH_DATABASE_URL=postgres://… for a real Postgres.
 *   bash bench/build.sh bench/definition-fuzz.ts | xargs node
 */
import fc from "fast-check";
import { arbitraryFuzzedDefinition } from "../lib/workflow/definition-fuzz.arbitraries";
import { createTestDb } from "../db/testing";
import { createWorkspaceFixture } from "../server/testing/harness";
import { publishFuzzCase, type PublishFuzzOutcome } from "../server/testing/publish-fuzz";
import { report, round } from "./stats";

const RUNS = Number(process.env.BENCH_FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

async function main() {
  if (process.env.BENCH_DATABASE_URL) {
    process.env.SLUICE_TEST_DB = "postgres";
    process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  }
  const driver = process.env.BENCH_DATABASE_URL ? "postgres" : "pglite";
  const db = await createTestDb("fuzzbench");
  try {
    const fx = await createWorkspaceFixture(db.db, "Fuzz");
    const ctx = fx.ctx("editor");
    const tally: Record<PublishFuzzOutcome, number> = {
      published: 0,
      refused: 0,
      tooLarge: 0,
      unstorable: 0,
    };
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(arbitraryFuzzedDefinition(), fc.nat(), async (definition, seed) => {
        tally[await publishFuzzCase(ctx, definition, seed)]++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const seconds = (performance.now() - t0) / 1000;
    report(`definition fuzz through save-draft + publish (${driver})`, {
      definitions: RUNS,
      seed: SEED,
      ...tally,
      failures: 0,
      seconds: round(seconds, 1),
      perDefinitionMs: round((seconds * 1000) / RUNS),
    });
  } finally {
    await db.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
