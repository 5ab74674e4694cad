/**
 * Fuzzing validate + hash (issue 16, reliability suite): 10,000 generated definitions, mostly
 * broken on purpose (definition-fuzz.arbitraries.ts). For every one: validating never throws;
 * every issue has a known code, a message and a JSON path that leads into the input (or is the
 * root); an invalid definition has at least one error; a valid one hashes the same whichever order
 * its keys come in, and the same through the normalizing and the fast path.
 * The publish half runs on a database: server/services/workflows/publish-fuzz.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arbitraryFuzzedDefinition,
  deeplyNested,
  shuffleKeys,
} from "./definition-fuzz.arbitraries";
import { hashDefinition, hashNormalizedDefinition } from "./hash";
import { ISSUE_CODES, type ValidationIssue } from "./issues";
import { validateDefinition } from "./validate";

const FUZZ_RUNS = 10_000;

/** Checks one issue's shape; returns a message naming what is wrong, or null. */
function issueProblem(issue: ValidationIssue): string | null {
  if (!(ISSUE_CODES as readonly string[]).includes(issue.code)) return `unknown code ${issue.code}`;
  if (typeof issue.message !== "string" || issue.message.trim() === "") return "empty message";
  if (!Array.isArray(issue.path)) return "no path";
  if (!issue.path.every((p) => typeof p === "string" || (Number.isInteger(p) && p >= 0)))
    return `bad path segment in ${JSON.stringify(issue.path)}`;
  if (issue.severity !== "error" && issue.severity !== "warning") return "no severity";
  return null;
}

describe("validate + hash under fuzzed definitions", () => {
  it(`never throws, every issue has a path, and hashes ignore key order (${FUZZ_RUNS} definitions)`, () => {
    let valid = 0;
    fc.assert(
      fc.property(arbitraryFuzzedDefinition(), fc.nat(), (input, seed) => {
        const result = validateDefinition(input);
        expect(Array.isArray(result.issues)).toBe(true);
        for (const issue of result.issues) expect(issueProblem(issue), issue.message).toBeNull();
        if (!result.ok) {
          expect(result.issues.some((i) => i.severity === "error")).toBe(true);
          return;
        }
        valid++;
        expect(result.definition).toBeDefined();
        const hash = hashNormalizedDefinition(result.definition!);
        expect(hashDefinition(input)).toBe(hash);
        const shuffled = shuffleKeys(input, seed);
        const again = validateDefinition(shuffled);
        expect(again.ok).toBe(true);
        expect(hashNormalizedDefinition(again.definition!)).toBe(hash);
        expect(hashDefinition(shuffled)).toBe(hash);
        // Idempotent: the normalized form hashes like its source.
        expect(hashDefinition(result.definition)).toBe(hash);
      }),
      { numRuns: FUZZ_RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261124) },
    );
    // The generator must reach past the schema: a fuzz that only ever produced garbage would prove
    // nothing about the semantic checks or the hash.
    expect(valid).toBeGreaterThan(FUZZ_RUNS / 20);
  }, 300_000);

  it("answers too-deep input with one root issue instead of overflowing the stack", () => {
    const r = validateDefinition({
      schemaVersion: 1,
      name: "Deep",
      steps: [deeplyNested(200_000)],
    });
    expect(r.ok).toBe(false);
    expect(r.issues.map((i) => i.code)).toEqual(["DEFINITION_TOO_LARGE"]);
  });
});
