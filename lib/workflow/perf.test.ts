/**
 * SPEC §10: validating and hashing a 1,000-step definition should take ≤ 20 ms. This test only
 * measures and logs (timing assertions are flaky on shared CI machines); bench/ reports the number.
 */
import { describe, expect, it } from "vitest";
import { makeLargeDefinition } from "./fixtures";
import { hashDefinition, hashNormalizedDefinition } from "./hash";
import { validateDefinition } from "./validate";

function measure(runs: number, fn: () => void): { median: number; p90: number; min: number } {
  for (let i = 0; i < 15; i++) fn(); // warm up the JIT
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(runs / 2)]!,
    p90: times[Math.floor(runs * 0.9)]!,
    min: times[0]!,
  };
}

const fmt = (t: { median: number; p90: number; min: number }) =>
  `median ${t.median.toFixed(1)} ms, p90 ${t.p90.toFixed(1)} ms, min ${t.min.toFixed(1)} ms`;

describe("performance (logged, not asserted)", () => {
  it("validate + hash of a generated 1,000-step definition", () => {
    const definition = makeLargeDefinition(1000);
    const first = validateDefinition(definition);
    expect(first.ok).toBe(true);
    expect(first.definition!.steps).toHaveLength(1000);

    const validateAndHash = measure(40, () => {
      const result = validateDefinition(definition);
      hashNormalizedDefinition(result.definition!);
    });
    const validateOnly = measure(20, () => validateDefinition(definition));
    const hashOnly = measure(20, () => hashDefinition(definition));
    console.log(
      `[perf] 1,000 steps — validate+hash: ${fmt(validateAndHash)} | validate: ${fmt(validateOnly)} | hashDefinition (parse+hash): ${fmt(hashOnly)}`,
    );
  });
});
