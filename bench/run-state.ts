/**
 * Cost per step of the run driver's pure planning on a chain of n pure steps (issue 28 part A):
 * what a wave does per step — a planning round, the step started, its template context built,
 * its outcome applied — with no database and no sandbox. Flat cost per step means the run state
 * and the steps context are O(1) amortised per transition. Timed in CPU time of this thread (the
 * machine is shared: wall time is mostly other processes). Prints load, medians of several rounds.
 *   bash bench/build.sh bench/run-state.ts && node bench/results/.build/run-state.cjs
 */
import os from "node:os";
import { applyOutcome, initialState, markStarted } from "../lib/workflow";
import { buildRunnableGraph } from "../lib/workflow/graph-cycles";
import { planRound, stepContext } from "../inngest/run-driver/planning";
import type { DriverNode } from "../inngest/run-driver/types";
import { median, round } from "./stats";

const SIZES = (process.env.BENCH_SIZES ?? "10,100,1000").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function chain(n: number) {
  const steps: DriverNode[] = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    type: "transform",
    config: { value: "{{ lastOutput }}" },
  }));
  return buildRunnableGraph({ steps });
}

/** One wave's planning over the whole chain; returns CPU ms. */
function wave(n: number): number {
  const graph = chain(n);
  const env = { base: { input: {}, vars: {}, run: {}, trigger: {} } as never };
  const scope = { prefix: "" };
  const t0 = process.cpuUsage();
  let state = initialState(graph);
  for (;;) {
    const r = planRound(env, graph, state, scope, undefined, () => false);
    state = r.state;
    if (r.finished) break;
    for (const id of r.toStart) {
      state = markStarted(state, id);
      const ctx = stepContext(env, graph, state, scope, id);
      state = applyOutcome(state, id, {
        kind: "completed",
        output: { type: "transform", data: ctx.lastOutput ?? id },
      });
    }
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
console.log(`load ${load()}`);
for (const n of SIZES) wave(n); // warm-up
const perStep: Record<number, number> = {};
for (const n of SIZES) {
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) ms.push(wave(n));
  perStep[n] = median(ms) / n;
  console.log(`chain-${n}: ${round(median(ms), 2)} ms CPU, ${round(perStep[n] * 1000, 1)} µs/step`);
}
const [small, large] = [SIZES[0]!, SIZES.at(-1)!];
console.log(`per-step ${large} ÷ ${small}: ${round(perStep[large]! / perStep[small]!, 2)}×`);
console.log(`load ${load()}`);
