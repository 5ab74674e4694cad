/**
 * Validating and hashing a 1,000-step definition (SPEC §10 target: ≤ 20 ms).
 *   npm run bench
 */
import { hashNormalizedDefinition, makeLargeDefinition, validateDefinition } from "../lib/workflow";
import { median, percentile, report, round } from "./stats";

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const def = makeLargeDefinition(1000);
// Warm-up: JIT and caches, as in a long-running server.
for (let i = 0; i < 5; i++) hashNormalizedDefinition(validateDefinition(def).definition!);
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const r = validateDefinition(def);
  if (!r.ok || !r.definition) throw new Error("the generated definition must be valid");
  hashNormalizedDefinition(r.definition);
  times.push(performance.now() - t0);
}
report("validate+hash 1000 steps", {
  runs: RUNS,
  medianMs: round(median(times)),
  p95Ms: round(percentile(times, 95)),
  targetMs: 20,
});
