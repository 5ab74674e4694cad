/**
 * The engine's graph semantics as a fixture table (SPEC §3): each case is a graph, a script of
 * step outcomes, and the exact executed / skipped / cancelled sets and final status, driven by
 * production's own driver (`runGraph`) with scripted effects (./test-fixtures/scripted-run.ts). Effects settle at
 * once, so steps complete in the order they started and `executed` is the start order.
 */
import { describe, expect, it } from "vitest";
import { makeLargeDefinition } from "@/lib/workflow/fixtures";
import type { GraphEdgeLike } from "@/lib/workflow/graph";
import { validateDefinition } from "@/lib/workflow/validate";
import { simulateRun, type Script, type SimulateOptions } from "./test-fixtures/scripted-run";

interface S {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  when?: unknown;
}

const t = (id: string, value: unknown = null): S => ({ id, type: "transform", config: { value } });
const http = (id: string): S => ({ id, type: "http", config: { url: "https://example.com" } });
const cond = (id: string): S => ({
  id,
  type: "condition",
  config: { condition: { ref: "input.flag" } },
});
const approval = (id: string): S => ({ id, type: "approval", config: { prompt: "Ship?" } });
const ret = (id: string, value: unknown): S => ({ id, type: "return", config: { value } });
const e = (from: string, to: string, extra: Partial<GraphEdgeLike> = {}): GraphEdgeLike => ({
  from,
  to,
  ...extra,
});

interface Fixture {
  steps: S[];
  edges?: GraphEdgeLike[];
  script?: Script;
  options?: SimulateOptions;
  maxParallel?: number;
  expect: {
    status: string;
    executed: string[];
    skipped?: string[];
    cancelled?: string[];
    failed?: string[];
    output?: unknown;
    peakParallel?: number;
  };
}

async function run(f: Fixture) {
  const result = await simulateRun(
    { steps: f.steps, edges: f.edges, constraints: { maxParallel: f.maxParallel ?? 4 } },
    f.script ?? {},
    f.options ?? {},
  );
  expect({
    status: result.status,
    executed: result.executed,
    skipped: [...result.skipped].sort(),
    cancelled: [...result.cancelled].sort(),
  }).toEqual({
    status: f.expect.status,
    executed: f.expect.executed,
    skipped: [...(f.expect.skipped ?? [])].sort(),
    cancelled: [...(f.expect.cancelled ?? [])].sort(),
  });
  if (f.expect.failed) expect(result.failed).toEqual(f.expect.failed);
  if ("output" in f.expect) expect(result.output).toEqual(f.expect.output);
  if (f.expect.peakParallel !== undefined) expect(result.peakParallel).toBe(f.expect.peakParallel);
  return result;
}

describe("linear", () => {
  //   a ──> b ──> c          (no edges: array order)
  it("runs every step in array order", async () => {
    await run({
      steps: [t("a"), t("b"), t("c")],
      expect: { status: "completed", executed: ["a", "b", "c"] },
    });
  });

  //   a ──> b (fails) ──> c
  it("skips what follows an unhandled failure and fails the run", async () => {
    await run({
      steps: [t("a"), http("b"), t("c")],
      script: { b: "fail" },
      expect: { status: "failed", executed: ["a", "b"], skipped: ["c"], failed: ["b"] },
    });
  });
});

describe("diamond with a failing branch", () => {
  //        ┌──> b (fails) ──┐  onFailure = <policy> on b → d
  //   a ───┤                ├──> d ──> e
  //        └──> c ──────────┘
  const steps = [t("a"), http("b"), t("c"), t("d"), t("e")];
  const edges = (onFailure: "skip" | "continue" | "fail_run") => [
    e("a", "b"),
    e("a", "c"),
    e("b", "d", { onFailure }),
    e("c", "d"),
    e("d", "e"),
  ];

  it("skip (default): the join is skipped although c succeeded, downstream too, and the run fails", async () => {
    const result = await run({
      steps,
      edges: edges("skip"),
      script: { b: "fail" },
      expect: { status: "failed", executed: ["a", "b", "c"], skipped: ["d", "e"] },
    });
    expect(result.verdict.unhandledFailures).toEqual(["b"]);
  });

  it("continue: the join runs, the failure is handled and the run completes", async () => {
    await run({
      steps,
      edges: edges("continue"),
      script: { b: "fail" },
      expect: { status: "completed", executed: ["a", "b", "c", "d", "e"] },
    });
  });

  //        ┌──> b (fails) ──┐ continue
  //   a ───┤                ├──> r (return { fromB, last })
  //        └──> c ──────────┘
  it("continue: the join sees the failed source's output as null; lastOutput is the source that finished last", async () => {
    const probe = ret("r", { fromB: "{{ steps.b.output }}", last: "{{ lastOutput.data }}" });
    await run({
      steps: [t("a"), http("b"), t("c", "c-value"), probe],
      edges: [e("a", "b"), e("a", "c"), e("b", "r", { onFailure: "continue" }), e("c", "r")],
      script: { b: "fail" },
      expect: {
        status: "completed",
        executed: ["a", "b", "c", "r"],
        output: { fromB: null, last: "c-value" },
      },
    });
  });

  // Issue 16: a path through the failed source's null output used to fail the join with
  // "nothing is not a JSON value"; now a lone template yields null and a key reaching nothing is
  // dropped (the real transform handler runs here).
  it("continue: a path through the failed source's null output resolves to nothing, not an error", async () => {
    const join = t("j", {
      whole: "{{ steps.b.output.data.body }}",
      keep: "{{ steps.c.output.data }}",
    });
    const result = await run({
      steps: [t("a"), http("b"), t("c", "c-value"), join, ret("r", "{{ steps.j.output.data }}")],
      edges: [
        e("a", "b"),
        e("a", "c"),
        e("b", "j", { onFailure: "continue" }),
        e("c", "j"),
        e("j", "r"),
      ],
      script: { b: "fail" },
      expect: {
        status: "completed",
        executed: ["a", "b", "c", "j", "r"],
        output: { keep: "c-value" },
      },
    });
    expect(result.failed).toEqual(["b"]);
  });

  it("fail_run: the run fails at once; the running sibling and pending steps are cancelled", async () => {
    await run({
      steps,
      edges: edges("fail_run"),
      script: { b: "fail" },
      expect: { status: "failed", executed: ["a", "b", "c"], cancelled: ["c", "d", "e"] },
    });
  });

  it("fail_run has no effect when the source succeeds", async () => {
    await run({
      steps,
      edges: edges("fail_run"),
      expect: { status: "completed", executed: ["a", "b", "c", "d", "e"] },
    });
  });
});

describe("branches", () => {
  //   c1 ─true──> c2 ─true──> x
  //    │           └─false──> y
  //    └─false──> z
  it("nested condition branches run exactly one leaf", async () => {
    await run({
      steps: [cond("c1"), cond("c2"), t("x"), t("y"), t("z")],
      edges: [
        e("c1", "c2", { port: "true" }),
        e("c1", "z", { port: "false" }),
        e("c2", "x", { port: "true" }),
        e("c2", "y", { port: "false" }),
      ],
      script: { c1: "true", c2: "false" },
      expect: { status: "completed", executed: ["c1", "c2", "y"], skipped: ["x", "z"] },
    });
  });

  //                 ┌─true──> t1 ──> t2 ──> t3 ─┐
  //   start ──> check                  └──> t2b  ├──> join ──> after
  //                 └─false─> f1 ───────────────┘
  it("an untaken branch skips its children and grandchildren; the join runs via the taken edge", async () => {
    await run({
      steps: [
        t("start"),
        cond("check"),
        t("t1"),
        t("t2"),
        t("t2b"),
        t("t3"),
        t("f1"),
        t("join"),
        t("after"),
      ],
      edges: [
        e("start", "check"),
        e("check", "t1", { port: "true" }),
        e("t1", "t2"),
        e("t2", "t3"),
        e("t2", "t2b"),
        e("check", "f1", { port: "false" }),
        e("t3", "join"),
        e("f1", "join"),
        e("join", "after"),
      ],
      script: { check: "false" },
      expect: {
        status: "completed",
        executed: ["start", "check", "f1", "join", "after"],
        skipped: ["t1", "t2", "t2b", "t3"],
      },
    });
  });

  //   check ─true──> yes ──┐
  //     └───false──> no ───┴──> join
  it("a join whose every incoming edge is untaken is skipped", async () => {
    await run({
      steps: [cond("check"), t("yes"), t("no"), t("join")],
      edges: [
        e("check", "yes", { port: "true" }),
        e("check", "no", { port: "false" }),
        e("yes", "join"),
        e("no", "join"),
      ],
      script: { check: "true", yes: { fail: true } },
      expect: { status: "failed", executed: ["check", "yes"], skipped: ["no", "join"] },
    });
  });

  //   check (input.flag) ─true──> a     (the condition is evaluated for real)
  it("a condition step evaluates its condition against the run input", async () => {
    const steps = [cond("check"), t("a"), t("b")];
    const edges = [e("check", "a", { port: "true" }), e("check", "b", { port: "false" })];
    expect((await simulateRun({ steps, edges }, {}, { input: { flag: true } })).executed).toEqual([
      "check",
      "a",
    ]);
    expect((await simulateRun({ steps, edges }, {}, { input: { flag: false } })).executed).toEqual([
      "check",
      "b",
    ]);
  });
});

describe("error ports", () => {
  //   s ──success──> next
  //   └───error────> handler
  it("a failure taken by an error edge is handled: the run completes", async () => {
    await run({
      steps: [http("s"), t("next"), t("handler")],
      edges: [e("s", "next"), e("s", "handler", { port: "error" })],
      script: { s: "fail" },
      expect: { status: "completed", executed: ["s", "handler"], skipped: ["next"] },
    });
  });

  it("the error edge is not taken when the step succeeds", async () => {
    await run({
      steps: [http("s"), t("next"), t("handler")],
      edges: [e("s", "next"), e("s", "handler", { port: "error" })],
      expect: { status: "completed", executed: ["s", "next"], skipped: ["handler"] },
    });
  });

  //   s ──error──> handler (fails)
  it("a failing error handler is itself an unhandled failure", async () => {
    await run({
      steps: [http("s"), http("handler")],
      edges: [e("s", "handler", { port: "error" })],
      script: { s: "fail", handler: "fail" },
      expect: { status: "failed", executed: ["s", "handler"] },
    });
  });

  //   s ──error──> handler
  //   └──success (fail_run)──> next
  it("fail_run wins over an error edge on the same step", async () => {
    await run({
      steps: [http("s"), t("next"), t("handler")],
      edges: [e("s", "next", { onFailure: "fail_run" }), e("s", "handler", { port: "error" })],
      script: { s: "fail" },
      expect: { status: "failed", executed: ["s"], cancelled: ["next", "handler"] },
    });
  });
});

describe("independent branches", () => {
  //   a ──> b (fails) ──> c
  //   x ──> y ──> z
  it("an unhandled failure fails the run only after independent branches finish", async () => {
    const result = await run({
      steps: [t("a"), http("b"), t("c"), t("x"), t("y"), t("z")],
      edges: [e("a", "b"), e("b", "c"), e("x", "y"), e("y", "z")],
      script: { b: "fail" },
      expect: { status: "failed", executed: ["a", "x", "b", "y", "z"], skipped: ["c"] },
    });
    expect(result.verdict.reason).toBe("unhandled_failure");
    expect(result.verdict.stepId).toBe("b");
  });
});

describe("approvals", () => {
  //   approve ─approved──> deploy
  //      └────rejected───> tell
  it("rejected with a rejected edge follows it and completes", async () => {
    await run({
      steps: [approval("approve"), http("deploy"), t("tell")],
      edges: [
        e("approve", "deploy", { port: "approved" }),
        e("approve", "tell", { port: "rejected" }),
      ],
      script: { approve: "rejected" },
      expect: { status: "completed", executed: ["approve", "tell"], skipped: ["deploy"] },
    });
  });

  //   lint ──> approve ──(approved)──> deploy        (array order)
  it("rejected without a rejected edge cancels the run", async () => {
    const result = await run({
      steps: [t("lint"), approval("approve"), http("deploy")],
      script: { approve: "rejected" },
      expect: { status: "cancelled", executed: ["lint", "approve"], cancelled: ["deploy"] },
    });
    expect(result.verdict.reason).toBe("approval_rejected");
  });

  it("approved follows the approved edge", async () => {
    await run({
      steps: [t("lint"), approval("approve"), http("deploy")],
      expect: { status: "completed", executed: ["lint", "approve", "deploy"] },
    });
  });
});

describe("return", () => {
  //   a ──> r (return)
  //   └───> b ──> c
  it("ends the run completed at once with its value; running steps are cancelled, pending ones skipped", async () => {
    await run({
      steps: [t("a", 41), ret("r", { answer: "{{ steps.a.output.data }}" }), http("b"), t("c")],
      edges: [e("a", "r"), e("a", "b"), e("b", "c")],
      expect: {
        status: "completed",
        executed: ["a", "r", "b"],
        cancelled: ["b"],
        skipped: ["c"],
        output: { answer: 41 },
      },
    });
  });

  //   x (fails)      a ──> r (return)
  it("does not hide an earlier unhandled failure", async () => {
    const result = await run({
      steps: [http("x"), t("a"), ret("r", 1)],
      edges: [e("a", "r")],
      script: { x: "fail" },
      expect: { status: "failed", executed: ["x", "a", "r"] },
    });
    expect(result.verdict.returned).toBe(true);
  });
});

describe("when", () => {
  //   a ──> b [when input.go] ──> c
  it("false skips the step and everything only reachable through it", async () => {
    const steps = [t("a"), { ...t("b"), when: { ref: "input.go", eq: true } }, t("c")];
    await run({
      steps,
      options: { input: { go: false } },
      expect: { status: "completed", executed: ["a"], skipped: ["b", "c"] },
    });
    await run({
      steps,
      options: { input: { go: true } },
      expect: { status: "completed", executed: ["a", "b", "c"] },
    });
  });

  //   a ──> b [when: "matches" with no pattern] ──> c
  // Production's rule (the old separate simulator threw here instead): a `when` that cannot be
  // evaluated counts as false, so the step and what only it reaches are skipped.
  it("a when that cannot be evaluated counts as false", async () => {
    await run({
      steps: [t("a"), { ...t("b"), when: { ref: "input.name", matches: 42 } }, t("c")],
      options: { input: { name: "x" } },
      expect: { status: "completed", executed: ["a"], skipped: ["b", "c"] },
    });
  });

  //   slow ──> slower          check [when steps.slower.output.data == "ok"]   (no edge to check)
  it("waits for the steps its when references, even without an edge", async () => {
    const steps = [
      t("slow"),
      t("slower", "ok"),
      { ...t("check"), when: { ref: "steps.slower.output.data", eq: "ok" } },
    ];
    await run({
      steps,
      edges: [e("slow", "slower")],
      expect: { status: "completed", executed: ["slow", "slower", "check"] },
    });
  });
});

describe("loops", () => {
  //   list ──> each [ fetch ──> save ] ──> report
  const body = { steps: [http("fetch"), t("save")] };
  const loop = {
    id: "each",
    type: "loop",
    config: { items: "{{ steps.list.output.data }}", body },
  };

  it("runs the body once per item and collects the iteration values", async () => {
    const result = await run({
      steps: [t("list", ["a", "b"]), loop, t("report", "{{ steps.each.output.data }}")],
      script: { save: "unused" },
      expect: {
        status: "completed",
        executed: [
          "list",
          "each",
          "each[0].fetch",
          "each[0].save",
          "each[1].fetch",
          "each[1].save",
          "report",
        ],
      },
    });
    expect(result.verdict.unhandledFailures).toEqual([]);
  });

  it("an iteration with an unhandled failure fails the loop (no further iterations) and the run", async () => {
    await run({
      steps: [t("list", ["a", "b", "c"]), loop, t("report")],
      script: { each: { iterations: [{}, { fetch: "fail" }, {}] } },
      expect: {
        status: "failed",
        executed: ["list", "each", "each[0].fetch", "each[0].save", "each[1].fetch"],
        skipped: ["each[1].save", "report"],
        failed: ["each[1].fetch", "each"],
      },
    });
  });

  //   list ──> each [ … ] ──done──> report
  //              └──error──> cleanup
  it("a loop failure can be handled by an error edge", async () => {
    await run({
      steps: [t("list", [1]), loop, t("report"), t("cleanup")],
      edges: [e("list", "each"), e("each", "report"), e("each", "cleanup", { port: "error" })],
      script: { each: { iterations: [{ fetch: "fail" }] } },
      expect: {
        status: "completed",
        executed: ["list", "each", "each[0].fetch", "cleanup"],
        skipped: ["each[0].save", "report"],
      },
    });
  });

  //   each [ check ─true──> yes
  //            └───false─> no ]
  it("a branch inside a loop body is decided per item", async () => {
    const branchy = {
      id: "each",
      type: "loop",
      config: {
        items: [true, false],
        body: {
          steps: [
            { id: "check", type: "condition", config: { condition: { ref: "loop.item" } } },
            t("yes"),
            t("no"),
          ],
          edges: [e("check", "yes", { port: "true" }), e("check", "no", { port: "false" })],
        },
      },
    };
    await run({
      steps: [branchy],
      expect: {
        status: "completed",
        executed: ["each", "each[0].check", "each[0].yes", "each[1].check", "each[1].no"],
        skipped: ["each[0].no", "each[1].yes"],
      },
    });
  });

  //   each [ r (return loop.item × 10)   slow ] ──> out (return the iteration values)
  it("return inside a body ends only that iteration, with its value", async () => {
    const withReturn = {
      id: "each",
      type: "loop",
      config: {
        items: [1, 2],
        body: { steps: [ret("r", "{{ loop.item }}"), http("slow")], edges: [] },
      },
    };
    await run({
      steps: [withReturn, ret("out", "{{ steps.each.output.data }}")],
      expect: {
        status: "completed",
        executed: ["each", "each[0].r", "each[0].slow", "each[1].r", "each[1].slow", "out"],
        cancelled: ["each[0].slow", "each[1].slow"],
        output: [1, 2],
      },
    });
  });

  it("a rejected approval without a rejected edge inside a body cancels the run", async () => {
    const gated = {
      id: "each",
      type: "loop",
      config: { items: [1], body: { steps: [approval("ok"), t("go")] } },
    };
    await run({
      steps: [gated, t("after")],
      script: { each: { iterations: [{ ok: "rejected" }] } },
      expect: {
        status: "cancelled",
        executed: ["each", "each[0].ok"],
        cancelled: ["each[0].go", "each", "after"],
      },
    });
  });
});

describe("maxParallel", () => {
  //   a   b   c   d   e      (five roots, maxParallel 2)
  it("never runs more than maxParallel steps at once", async () => {
    await run({
      steps: ["a", "b", "c", "d", "e"].map((id) => t(id)),
      edges: [],
      maxParallel: 2,
      expect: { status: "completed", executed: ["a", "b", "c", "d", "e"], peakParallel: 2 },
    });
  });

  //        ┌──> b ──┐
  //   a ───┼──> c ──┼──> e     (maxParallel 1: strictly one at a time, array order)
  //        └──> d ──┘
  it("with maxParallel 1 ready steps run one at a time in array order", async () => {
    await run({
      steps: [t("a"), t("b"), t("c"), t("d"), t("e")],
      edges: [e("a", "b"), e("a", "c"), e("a", "d"), e("b", "e"), e("c", "e"), e("d", "e")],
      maxParallel: 1,
      expect: { status: "completed", executed: ["a", "b", "c", "d", "e"], peakParallel: 1 },
    });
  });
});

describe("a generated 1,000-step definition", () => {
  it("runs end to end through the driver (conditions take the true branch)", async () => {
    const definition = validateDefinition(makeLargeDefinition(1000)).definition!;
    const result = await simulateRun(definition, {}, { input: { name: "x", count: 1 } });
    expect(result.status).toBe("completed");
    expect(result.executed.length + result.skipped.length).toBe(1000);
    expect(result.skipped.length).toBeGreaterThan(200);
  });
});
