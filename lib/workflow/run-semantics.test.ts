import { describe, expect, it } from "vitest";
import {
  abortRun,
  applyOutcome,
  initialState,
  markStarted,
  markWaiting,
  RunStateError,
  type RunState,
  type RunVerdict,
} from "./run-semantics";
import { contextForStep, iterationValue, lastOutputFor, loopOutcome } from "./run-context";
import { applyDecisions, nextActions } from "./run-decisions";
import { type GraphEdgeLike } from "./graph";
import { buildRunnableGraph } from "./graph-cycles";

const step = (id: string, type = "transform") => ({ id, type });
const env = (data: unknown, type = "transform") => ({ type, data, meta: {} });
const graphOf = (
  steps: Array<{ id: string; type: string; when?: unknown }>,
  edges?: GraphEdgeLike[],
  maxParallel = 4,
) => buildRunnableGraph({ steps, edges, constraints: { maxParallel } });
const complete = (state: RunState, id: string, data: unknown = null, port?: string) =>
  applyOutcome(markStarted(state, id), id, {
    kind: "completed",
    output: env(data),
    ...(port ? { port } : {}),
  });

describe("state transitions", () => {
  //   a ──> b
  const graph = graphOf([step("a"), step("b")]);

  it("starts with every step pending and the roots ready", () => {
    const state = initialState(graph);
    expect(Object.values(state.steps).map((s) => s.status)).toEqual(["pending", "pending"]);
    expect(nextActions(graph, state)).toMatchObject({ start: ["a"], skip: [], finished: null });
    expect(initialState({ steps: [step("x")] }).steps.x?.status).toBe("pending");
  });

  it("refuses impossible transitions with clear errors", () => {
    const state = initialState(graph);
    expect(() => applyOutcome(state, "a", { kind: "completed" })).toThrow(
      'Step "a" cannot complete: it is pending.',
    );
    expect(() => markStarted(markStarted(state, "a"), "a")).toThrow(/cannot start: it is running/);
    expect(() =>
      applyOutcome(markStarted(state, "a"), "a", { kind: "skipped", reason: "when_false" }),
    ).toThrow(/cannot be skipped: it is running/);
    expect(() => applyOutcome(complete(state, "a"), "a", { kind: "failed" })).toThrow(
      /cannot fail: it is completed/,
    );
    expect(() => markStarted(state, "nope")).toThrow(RunStateError);
    expect(() => markStarted(state, "constructor")).toThrow(/Unknown step "constructor"/);
  });

  it("checks the completion port against the step type", () => {
    const g = graphOf([{ id: "c", type: "condition" }]);
    const running = markStarted(initialState(g), "c");
    expect(() => applyOutcome(running, "c", { kind: "completed", port: "success" })).toThrow(
      'Step "c" (condition) completed on port "success", but its ports are true, false.',
    );
    expect(applyOutcome(running, "c", { kind: "completed" }).steps.c?.port).toBe("true");
  });

  it("never mutates the previous state", () => {
    const before = initialState(graph);
    const frozen = JSON.stringify(before);
    complete(before, "a");
    expect(JSON.stringify(before)).toBe(frozen);
  });

  it("state survives a JSON round trip (it can be stored and reloaded)", () => {
    const state = JSON.parse(JSON.stringify(complete(initialState(graph), "a", 1))) as RunState;
    expect(nextActions(graph, state).start).toEqual(["b"]);
  });
});

describe("nextActions", () => {
  it("explains skips", () => {
    //   c ─true─> t       c ─false─> f
    const g = graphOf(
      [{ id: "c", type: "condition" }, step("t"), step("f")],
      [
        { from: "c", to: "t", port: "true" },
        { from: "c", to: "f", port: "false" },
      ],
    );
    const state = complete(initialState(g), "c", true, "true");
    expect(nextActions(g, state).skip).toEqual([
      {
        stepId: "f",
        reason: "branch_not_taken",
        detail: 'no incoming edge was taken ("c" completed on "true", edge needs "false")',
      },
    ]);
    //   a (fails) ──> b
    const g2 = graphOf([step("a", "http"), step("b")]);
    const failed = applyOutcome(markStarted(initialState(g2), "a"), "a", {
      kind: "failed",
      error: { message: "boom" },
    });
    expect(nextActions(g2, failed).skip).toEqual([
      { stepId: "b", reason: "upstream_failed", detail: '"a" failed (onFailure "skip")' },
    ]);
  });

  it("propagates skips transitively in one call", () => {
    //   c ─false─> x ──> y ──> z
    const g = graphOf(
      [{ id: "c", type: "condition" }, step("x"), step("y"), step("z")],
      [
        { from: "c", to: "x", port: "false" },
        { from: "x", to: "y" },
        { from: "y", to: "z" },
      ],
    );
    const actions = nextActions(g, complete(initialState(g), "c", true, "true"));
    expect(actions.skip.map((s) => s.stepId)).toEqual(["x", "y", "z"]);
    const after = applyDecisions(complete(initialState(g), "c", true, "true"), actions);
    expect(nextActions(g, after).finished).toMatchObject({
      status: "completed",
      reason: "all_steps_finished",
    });
  });

  it("waiting steps hold a parallel slot", () => {
    const g = graphOf([step("a", "approval"), step("b"), step("c")], [], 2);
    let state = markWaiting(markStarted(initialState(g), "a"), "a");
    expect(nextActions(g, state)).toMatchObject({ start: ["b"], waitingForSlot: ["c"] });
    state = markStarted(state, "b");
    expect(nextActions(g, state)).toMatchObject({
      start: [],
      waitingForSlot: ["c"],
      finished: null,
    });
    state = applyOutcome(state, "a", { kind: "completed", port: "approved" });
    expect(nextActions(g, state).start).toEqual(["c"]);
  });

  it("abortRun cancels whatever is left and ends the run", () => {
    const g = graphOf([step("a"), step("b")]);
    const state = abortRun(markStarted(initialState(g), "a"), "timed_out", "deadline");
    const actions = nextActions(g, state);
    expect(actions.cancel).toEqual([
      { stepId: "a", status: "cancelled", reason: "run_ended" },
      { stepId: "b", status: "cancelled", reason: "run_ended" },
    ]);
    expect(actions.finished).toMatchObject({ status: "timed_out", reason: "aborted" });
    const done = applyDecisions(state, actions);
    expect(Object.values(done.steps).map((s) => s.status)).toEqual(["cancelled", "cancelled"]);
    expect(nextActions(g, done).finished).toMatchObject({ status: "timed_out" });
  });

  it("the first halting event wins", () => {
    //   r1 (return)   bad ──fail_run──> x
    const g = graphOf(
      [step("bad", "http"), step("x"), { id: "r1", type: "return" }],
      [{ from: "bad", to: "x", onFailure: "fail_run" }],
    );
    let state = markStarted(markStarted(initialState(g), "bad"), "r1");
    state = applyOutcome(state, "r1", { kind: "completed", output: env(7, "return") });
    state = applyOutcome(state, "bad", { kind: "failed" });
    expect(nextActions(g, state).finished).toMatchObject({
      status: "completed",
      reason: "returned",
      output: 7,
    });
  });
});

describe("context helpers", () => {
  //   a ──> c <── b
  const g = graphOf(
    [step("a"), step("b"), step("c")],
    [
      { from: "a", to: "c" },
      { from: "b", to: "c" },
    ],
  );

  it("lastOutput is the output of the taken source that finished last", () => {
    let state = markStarted(markStarted(initialState(g), "a"), "b");
    state = applyOutcome(state, "b", { kind: "completed", output: env("from b") });
    state = applyOutcome(state, "a", { kind: "completed", output: env("from a") });
    expect(lastOutputFor(g, state, "c")).toEqual(env("from a"));
    expect(lastOutputFor(g, state, "a")).toBeNull();
  });

  it("contextForStep exposes outputs and statuses", () => {
    const state = complete(complete(initialState(g), "a", 1), "b", 2);
    const ctx = contextForStep(g, state, "c", { input: { x: 1 } });
    expect(ctx.steps?.a).toEqual({ output: env(1), status: "completed" });
    expect(ctx.steps?.c).toEqual({ status: "pending" });
    expect(ctx.input).toEqual({ x: 1 });
  });
});

describe("loops", () => {
  const verdict = (status: RunVerdict["status"], extra: Partial<RunVerdict> = {}): RunVerdict => ({
    status,
    reason: "all_steps_finished",
    unhandledFailures: [],
    returned: false,
    ...extra,
  });

  it("folds iterations: values in item order on done", () => {
    expect(
      loopOutcome([
        { index: 1, verdict: verdict("completed"), value: "b" },
        { index: 0, verdict: verdict("completed"), value: "a" },
      ]),
    ).toEqual({
      kind: "completed",
      port: "done",
      output: { type: "loop", data: ["a", "b"], meta: { count: 2 } },
    });
  });

  it("a failed iteration fails the loop and names it; a cancelled one cancels it", () => {
    expect(
      loopOutcome([
        { index: 0, verdict: verdict("completed"), value: 1 },
        {
          index: 1,
          verdict: verdict("failed", { reason: "unhandled_failure", stepId: "fetch" }),
          value: null,
        },
      ]),
    ).toMatchObject({
      kind: "failed",
      error: {
        message: 'Iteration 1 failed at step "fetch" (unhandled_failure).',
        index: 1,
        stepId: "fetch",
      },
    });
    expect(
      loopOutcome([
        { index: 0, verdict: verdict("failed"), value: null },
        { index: 1, verdict: verdict("cancelled", { reason: "approval_rejected" }), value: null },
      ]),
    ).toMatchObject({ kind: "cancelled" });
  });

  it("iterationValue: the return value, else the last completed body step in array order", () => {
    const body = graphOf([step("one"), step("two"), step("three")], []);
    let state = complete(initialState(body), "one", "first");
    state = complete(state, "two", "second");
    expect(iterationValue(body, state, verdict("completed"))).toBe("second");
    expect(
      iterationValue(body, state, verdict("completed", { returned: true, output: "ret" })),
    ).toBe("ret");
    expect(iterationValue(body, initialState(body), verdict("completed"))).toBeNull();
  });
});
