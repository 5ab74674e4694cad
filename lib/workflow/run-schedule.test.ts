/**
 * nextActions on its incremental schedule (run-schedule.ts) decides exactly what a scan of every
 * step decides (`nextActionsByScan`, the rules as written before), round after round, on random
 * graphs and random outcomes: skips and their propagation, joins, `when` waits, failures through
 * error, continue and fail_run edges, returns, aborts, maxParallel.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildRunnableGraph } from "./graph-cycles";
import type { GraphEdgeLike } from "./graph";
import { applyDecisions, nextActions, nextActionsByScan } from "./run-decisions";
import {
  abortRun,
  applyOutcome,
  initialState,
  markStarted,
  markWaiting,
  type RunState,
} from "./run-semantics";

const TYPES = ["transform", "transform", "transform", "condition", "return"] as const;

const graphArb = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.record({
    types: fc.array(fc.constantFrom(...TYPES), { minLength: n, maxLength: n }),
    edges: fc.array(
      fc.record({
        a: fc.nat(n - 1),
        b: fc.nat(n - 1),
        port: fc.constantFrom("success", "error", "true", "false"),
        onFailure: fc.constantFrom("skip", "continue", "fail_run"),
      }),
      { maxLength: n * 2 },
    ),
    whens: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 }),
    maxParallel: fc.integer({ min: 1, max: 4 }),
    script: fc.array(fc.nat(1000), { minLength: 60, maxLength: 60 }),
  }),
);

describe("incremental schedule", () => {
  it("decides like a scan of every step, round after round", () => {
    fc.assert(
      fc.property(graphArb, ({ types, edges, whens, maxParallel, script }) => {
        const ids = types.map((_, i) => `s${i}`);
        const edgeList: GraphEdgeLike[] = edges
          .filter((e) => e.a < e.b) // forward only: acyclic
          .map((e) => {
            const from = types[e.a]!;
            const port =
              e.port === "error"
                ? "error"
                : from === "condition"
                  ? e.port === "false"
                    ? "false"
                    : "true"
                  : "success";
            return { from: ids[e.a]!, to: ids[e.b]!, port, onFailure: e.onFailure };
          })
          .filter((e) => types[Number(e.from.slice(1))] !== "return");
        const steps = types.map((type, i) => {
          const w = whens.find(([at, ref]) => at === i && ref < i);
          return {
            id: ids[i]!,
            type,
            ...(w ? { when: { ref: `steps.${ids[w[1]]}.status`, eq: "completed" } } : {}),
          };
        });
        const graph = buildRunnableGraph({
          steps,
          edges: edgeList.length ? edgeList : undefined,
          constraints: { maxParallel },
        });
        let state: RunState = initialState(graph);
        let r = 0;
        const pick = () => script[r++ % script.length]!;
        for (let round = 0; round < 80; round++) {
          const fast = nextActions(graph, state);
          expect(fast).toEqual(nextActionsByScan(graph, state));
          state = applyDecisions(state, fast);
          if (fast.finished) return;
          for (const id of fast.start) {
            state = markStarted(state, id);
            if (pick() % 5 === 0 && graph.nodes.get(id)!.type !== "return")
              state = markWaiting(state, id);
          }
          const running = graph.ids.filter((id) =>
            ["running", "waiting"].includes(state.steps[id]!.status),
          );
          if (!running.length) continue;
          const id = running[pick() % running.length]!;
          const type = graph.nodes.get(id)!.type;
          const roll = pick() % 10;
          if (roll === 0) state = abortRun(state, "cancelled");
          else if (roll < 3 && type !== "return")
            state = applyOutcome(state, id, { kind: "failed", error: { message: "x" } });
          else
            state = applyOutcome(state, id, {
              kind: "completed",
              output: { data: roll },
              ...(type === "condition" ? { port: roll % 2 ? "true" : "false" } : {}),
            });
        }
      }),
      { numRuns: 400, seed: 28 },
    );
  });
});
