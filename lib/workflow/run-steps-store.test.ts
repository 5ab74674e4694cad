/**
 * RunState.steps and a context's `steps` are views over a persistent map (run-steps-store.ts):
 * they must read exactly like the plain records they replace, and stay immutable.
 */
import { describe, expect, it } from "vitest";
import { applyOutcome, initialState, markStarted, type RunState } from "./run-semantics";
import { contextForStep, stepsContext } from "./run-context";
import { buildRunnableGraph } from "./graph-cycles";

// Integer-like ids ("10", "2") come first in a plain object's key order, ascending.
const graph = buildRunnableGraph({
  steps: ["b", "10", "a", "2"].map((id) => ({ id, type: "transform" })),
});
const complete = (state: RunState, id: string, data: unknown) =>
  applyOutcome(markStarted(state, id), id, { kind: "completed", output: { data } });

/** What the steps record and context were before: plain objects rebuilt per transition. */
function plainSteps(state: RunState) {
  return JSON.parse(JSON.stringify(state.steps)) as Record<string, unknown>;
}

describe("run state steps as a persistent map", () => {
  it("reads like the plain record: keys in plain order, entries, hasOwn, JSON", () => {
    const first = initialState(graph);
    const state = complete(complete(first, "b", 1), "10", { n: 2 });
    expect(Object.keys(state.steps)).toEqual(Object.keys(first.steps));
    expect(Object.keys(state.steps)).toEqual(["2", "10", "b", "a"]);
    expect(Object.hasOwn(state.steps, "b")).toBe(true);
    expect(Object.hasOwn(state.steps, "constructor")).toBe(false);
    expect("toString" in state.steps).toBe(true);
    expect(state.steps["10"]).toMatchObject({ status: "completed", output: { data: { n: 2 } } });
    expect({ ...state.steps }).toEqual(plainSteps(state));
    expect(Object.entries(state.steps).map(([id, s]) => [id, s.status])).toEqual([
      ["2", "pending"],
      ["10", "completed"],
      ["b", "completed"],
      ["a", "pending"],
    ]);
  });

  it("keeps every earlier state as it was, and refuses writes", () => {
    const s0 = initialState(graph);
    const s1 = complete(s0, "b", 1);
    const snap1 = JSON.stringify(s1);
    const s2 = complete(s1, "10", 2);
    const s2b = complete(s1, "a", 3); // a second branch from the same state
    expect(JSON.stringify(s1)).toBe(snap1);
    expect(s2.steps.a!.status).toBe("pending");
    expect(s2b.steps["10"]!.status).toBe("pending");
    expect(s2b.steps.a!.status).toBe("completed");
    expect(() => {
      "use strict";
      (s1.steps as Record<string, unknown>).b = null;
    }).toThrow(TypeError);
    expect(s1.steps.b!.status).toBe("completed");
  });

  it("continues from a state read back from JSON", () => {
    const stored = JSON.parse(JSON.stringify(complete(initialState(graph), "b", 1))) as RunState;
    const next = complete(stored, "a", 2);
    expect(next.steps.b!.status).toBe("completed");
    expect(next.steps.a!.status).toBe("completed");
    expect(Object.keys(next.steps)).toEqual(Object.keys(stored.steps));
  });

  it("builds a step's `steps` context with the same entries as before, outer steps first", () => {
    const state = complete(markStarted(initialState(graph), "2"), "b", { x: 1 });
    expect({ ...stepsContext(state) }).toEqual({
      "2": { status: "running" },
      "10": { status: "pending" },
      b: { status: "completed", output: { data: { x: 1 } } },
      a: { status: "pending" },
    });
    const outer = {
      up: { status: "completed" as const, output: 5 },
      b: { status: "pending" as const },
    };
    const ctx = contextForStep(graph, state, "a", { input: {}, steps: outer } as never);
    expect(Object.keys(ctx.steps!)).toEqual(Object.keys({ ...outer, ...stepsContext(state) }));
    expect(JSON.parse(JSON.stringify(ctx.steps))).toEqual({ ...outer, ...plainCtx(state) });
    expect(ctx.steps!.up).toEqual({ status: "completed", output: 5 });
    expect(ctx.steps!.b).toEqual({ status: "completed", output: { data: { x: 1 } } });
  });
});

function plainCtx(state: RunState) {
  return JSON.parse(JSON.stringify(stepsContext(state))) as Record<string, unknown>;
}
