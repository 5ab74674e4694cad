/**
 * Fuzzing save-draft + publish on a real database (issue 16, reliability suite): generated
 * definitions, mostly broken (lib/workflow/definition-fuzz.arbitraries.ts), saved as a draft and
 * published. Every outcome is either a new or unchanged version whose hash is the definition's
 * hash, or a domain error (ValidationError with a path on every issue, PayloadTooLargeError) —
 * never an unknown error (a 500). A published definition saved again with its keys in another
 * order publishes as "unchanged". The count is kept small for the suite (PUBLISH_FUZZ_RUNS);
 * bench/definition-fuzz.ts pushes 10,000 through the same path; validate + hash alone run 10,000
 * times in lib/workflow/definition-fuzz.test.ts.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { arbitraryFuzzedDefinition } from "@/lib/workflow/definition-fuzz.arbitraries";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { publishFuzzCase, type PublishFuzzOutcome } from "@/server/testing/publish-fuzz";

const RUNS = Number(process.env.PUBLISH_FUZZ_RUNS ?? 300);

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("publishfuzz");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Fuzz");
});
afterAll(async () => {
  await t?.close();
});

describe("save draft + publish under fuzzed definitions", () => {
  it(`answers every definition with a version or a domain error (${RUNS} definitions)`, async () => {
    const tally: Record<PublishFuzzOutcome, number> = {
      published: 0,
      refused: 0,
      tooLarge: 0,
      unstorable: 0,
    };
    const ctx = fx.ctx("editor");
    await fc.assert(
      fc.asyncProperty(arbitraryFuzzedDefinition(), fc.nat(), async (definition, seed) => {
        tally[await publishFuzzCase(ctx, definition, seed)]++;
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261124) },
    );
    // Both halves were exercised: some definitions published, some were refused.
    expect(tally.published).toBeGreaterThan(RUNS / 20);
    expect(tally.refused).toBeGreaterThan(RUNS / 5);
  }, 300_000);

  it("regression: a null draft is saved as JSON null, and publishing it is a validation error", async () => {
    // Was a not-null violation (a 500): drizzle writes a bare null into jsonb as SQL NULL.
    for (const definition of [null, undefined]) {
      expect(await publishFuzzCase(fx.ctx("editor"), definition, 1)).toBe("refused");
    }
  });
});
