/**
 * The proposal dry run: recorded runs replayed through a proposed definition by the production
 * driver (`runGraph`) with simulated effects. The simulation needs no database or network (any
 * durable step tool it reached would throw); the last suite records real runs on the engine
 * harness to check that the dry run predicts what production does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonValue } from "@/lib/workflow";
import type { RecordedRun, RecordedStep } from "@/lib/workflow/dry-run-types";
import { recordedRunReplay } from "@/inngest/run-driver/replay";
import { stepEffects } from "@/inngest/functions/step-effects";
import { dryRunDefinition as dryRunWith, dryRunOne as dryRunOneWith } from "./dry-run";
import type { DryRunOptions, RecordedRun as Recorded } from "@/lib/workflow/dry-run-types";

/** The service with production's replay (the driver) plugged in, as proposal-dry-run.ts does. */
const replayRecordedRun = recordedRunReplay(stepEffects);
const dryRunOne = (definition: unknown, run: Recorded, options?: DryRunOptions) =>
  dryRunOneWith(replayRecordedRun, definition, run, options);
const dryRunDefinition = (args: Omit<Parameters<typeof dryRunWith>[0], "replay">) =>
  dryRunWith({ ...args, replay: replayRecordedRun });
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

type Json = JsonValue;

/** A recorded step: completed steps get the `{ type, data, meta }` envelope. */
function done(
  path: string,
  stepType: string,
  data: Json,
  port: string | null = null,
): RecordedStep {
  const stepId = path.slice(path.lastIndexOf(".") + 1);
  return {
    path,
    stepId,
    stepType,
    status: "completed",
    output: { type: stepType, data, meta: {} },
    port,
    error: null,
  };
}
function skipped(path: string, stepType: string): RecordedStep {
  const stepId = path.slice(path.lastIndexOf(".") + 1);
  return { path, stepId, stepType, status: "skipped", output: null, port: null, error: null };
}
function failed(path: string, stepType: string, message: string): RecordedStep {
  const stepId = path.slice(path.lastIndexOf(".") + 1);
  return { path, stepId, stepType, status: "failed", output: null, port: null, error: { message } };
}
function run(
  runId: string,
  input: Record<string, Json>,
  steps: RecordedStep[],
  output: Json,
  status = "completed",
): RecordedRun {
  return {
    runId,
    status,
    versionLabel: "1.0.0",
    input,
    trigger: { type: "manual" },
    output,
    steps,
  };
}

// ------------------------------------------------------------------------------------------
// The "orders" workflow
//
//   fetch (http) ──▶ check (condition: total > 100)
//                      ├──true──▶ approve (approval) ──approved──▶ big (http)
//                      └──false─▶ small (transform)
// ------------------------------------------------------------------------------------------

type Step = Record<string, unknown> & { id: string };

function orders(
  patch: {
    check?: Record<string, unknown>;
    small?: Record<string, unknown>;
    extraSteps?: Step[];
    extraEdges?: Record<string, unknown>[];
    output?: unknown;
  } = {},
) {
  return {
    schemaVersion: 1,
    name: "Orders",
    inputs: { id: { type: "string", required: true } },
    steps: [
      {
        id: "fetch",
        type: "http",
        config: { method: "GET", url: "https://shop.example/orders/{{ input.id }}" },
      },
      {
        id: "check",
        type: "condition",
        config: {
          condition: patch.check ?? { ref: "steps.fetch.output.data.body.total", gt: 100 },
        },
      },
      { id: "approve", type: "approval", config: { prompt: "Ship order {{ input.id }}?" } },
      {
        id: "big",
        type: "http",
        config: {
          method: "POST",
          url: "https://shop.example/ship",
          body: { id: "{{ input.id }}" },
        },
      },
      {
        id: "small",
        type: "transform",
        config: { value: patch.small ?? { id: "{{ input.id }}", mode: "auto" } },
      },
      ...(patch.extraSteps ?? []),
    ],
    edges: [
      { from: "fetch", to: "check" },
      { from: "check", port: "true", to: "approve" },
      { from: "approve", port: "approved", to: "big" },
      { from: "check", port: "false", to: "small" },
      ...(patch.extraEdges ?? []),
    ],
    output: patch.output ?? {
      checked: "{{ steps.check.output.data }}",
      total: "{{ steps.fetch.output.data.body.total }}",
    },
  };
}

const fetched = (total: number) => ({ status: 200, headers: {}, body: { total } });

/** total 250: approved and shipped. */
const r1 = run(
  "r1",
  { id: "o1" },
  [
    done("fetch", "http", fetched(250), "success"),
    done("check", "condition", true, "true"),
    done("approve", "approval", { decision: "approved" }, "approved"),
    done("big", "http", { status: 200, headers: {}, body: { shipped: true } }, "success"),
    skipped("small", "transform"),
  ],
  { checked: true, total: 250 },
);
/** total 40: handled automatically. */
const r2 = run(
  "r2",
  { id: "o2" },
  [
    done("fetch", "http", fetched(40), "success"),
    done("check", "condition", false, "false"),
    skipped("approve", "approval"),
    skipped("big", "http"),
    done("small", "transform", { id: "o2", mode: "auto" }, "success"),
  ],
  { checked: false, total: 40 },
);
/** total 120: the approver rejected; no `rejected` edge, so the run was cancelled. */
const r3 = run(
  "r3",
  { id: "o3" },
  [
    done("fetch", "http", fetched(120), "success"),
    done("check", "condition", true, "true"),
    done("approve", "approval", { decision: "rejected" }, "rejected"),
    skipped("big", "http"),
    skipped("small", "transform"),
  ],
  null,
  "cancelled",
);

describe("dry run: orders", () => {
  it("(a) the unchanged definition replays every run on the same path with the same output", async () => {
    const report = await dryRunDefinition({
      definition: orders(),
      baseHash: "sha256:base",
      proposedHash: "sha256:base",
      runs: [r1, r2, r3],
      now: () => new Date("2030-01-02T03:04:05Z"),
    });
    expect(report.computedAt).toBe("2030-01-02T03:04:05.000Z");
    expect(report.totals).toEqual({
      same_path: 3,
      different_path: 0,
      would_fail: 0,
      not_comparable: 0,
    });
    for (const r of report.runs) {
      expect(r).toMatchObject({
        verdict: "same_path",
        newlyExecuted: [],
        newlySkipped: [],
        notComparable: [],
        outputChanged: false,
      });
    }
    // The rejected approval still cancels r3: reported, but it is not a new failure.
    expect(report.runs[2]!.failure).toEqual({
      stepPath: "approve",
      message: 'Approval "approve" was rejected and has no "rejected" edge',
    });
    expect(report.runs[0]!.failure).toBeNull();
  });

  it("(b) a raised threshold sends the 250 order down the false branch", async () => {
    const proposed = orders({ check: { ref: "steps.fetch.output.data.body.total", gt: 300 } });
    const [a, b, c] = await Promise.all([r1, r2, r3].map((r) => dryRunOne(proposed, r)));
    expect(a).toMatchObject({
      runId: "r1",
      verdict: "different_path",
      newlyExecuted: ["small"],
      newlySkipped: ["approve", "big"],
      notComparable: [],
      failure: null,
      outputBefore: { checked: true, total: 250 },
      outputAfter: { checked: false, total: 250 },
      outputChanged: true,
      outcome: "different_outcome",
    });
    expect(a!.steps?.map((s) => [s.path, s.verdict])).toEqual([
      ["fetch", "same"],
      ["check", "different_output"],
      ["small", "different_path"],
      ["approve", "different_path"],
      ["big", "different_path"],
    ]);
    expect(a!.steps?.[1]?.diff).toEqual([
      { op: "changed", path: ["port"], before: "true", after: "false" },
      { op: "changed", path: ["output"], before: true, after: false },
    ]);
    expect(b).toMatchObject({ verdict: "same_path", outputChanged: false });
    // r3 no longer reaches the approval: the run that was cancelled would now complete.
    expect(c).toMatchObject({
      verdict: "different_path",
      newlyExecuted: ["small"],
      newlySkipped: ["approve"],
      failure: null,
      outputBefore: null,
      outputAfter: { checked: false, total: 120 },
    });
  });

  /*
   *   … check ──false──▶ small ──▶ audit (new http)
   */
  it("(c) a new http step on a path is executed but not comparable", async () => {
    const proposed = orders({
      extraSteps: [
        {
          id: "audit",
          type: "http",
          config: {
            method: "POST",
            url: "https://audit.example/log",
            body: { id: "{{ input.id }}" },
          },
        },
      ],
      extraEdges: [{ from: "small", to: "audit" }],
    });
    const [a, b] = await Promise.all([r1, r2].map((r) => dryRunOne(proposed, r)));
    expect(b).toMatchObject({
      verdict: "different_path",
      newlyExecuted: ["audit"],
      newlySkipped: [],
      notComparable: ["audit"],
      // Unverified: never executed, its branch stops there, so the run cannot tell its output.
      outputChanged: true,
      outcome: "cannot_tell",
    });
    expect(b!.steps?.find((s) => s.path === "audit")).toMatchObject({
      verdict: "unverified",
      reason: "The original run did not run it: no recording to serve",
    });
    // On r1 the new step sits on the untaken branch: skipped, nothing to compare.
    expect(a).toMatchObject({ verdict: "same_path", newlyExecuted: [], notComparable: [] });
  });

  it("(e) a condition that cannot be evaluated fails the run at that step", async () => {
    const proposed = orders({
      check: { ref: "input.id", matches: "{{ steps.fetch.output.data.body.pattern }}" },
    });
    const r = await dryRunOne(proposed, r2);
    expect(r.verdict).toBe("would_fail");
    expect(r.failure?.stepPath).toBe("check");
    expect(r.failure?.message).toMatch(
      /^Step "check" failed: The step's config is invalid after resolving templates:[\s\S]*takes a pattern string/,
    );
    expect(r.newlySkipped).toEqual(["small"]);
    expect(r.outputAfter).toBeNull();
    expect(r.outputChanged).toBe(true);
  });

  it("(e) an output template that reads a removed step fails the run with no step to blame", async () => {
    const proposed = orders({ output: "{{ steps.gone.output.data }}" });
    const r = await dryRunOne(proposed, r1);
    expect(r).toMatchObject({ verdict: "would_fail", newlyExecuted: [], newlySkipped: [] });
    expect(r.failure).toEqual({
      stepPath: null,
      message: expect.stringMatching(/^The workflow's output could not be resolved: .*gone/),
    });
  });

  it("a recorded side-effect failure is replayed: without its error edge the run now fails", async () => {
    /*
     *   fetch (http, failed) ──error──▶ fallback (transform)      base: the failure is handled
     *   fetch ──▶ fallback                                         proposed: edge on "success"
     */
    const base = (port: string) => ({
      schemaVersion: 1,
      name: "Fallback",
      steps: [
        { id: "fetch", type: "http", config: { method: "GET", url: "https://shop.example/x" } },
        { id: "fallback", type: "transform", config: { value: "default" } },
      ],
      edges: [{ from: "fetch", port, to: "fallback" }],
    });
    const recorded = run(
      "r9",
      {},
      [failed("fetch", "http", "HTTP 503"), done("fallback", "transform", "default", "success")],
      null,
    );
    expect(await dryRunOne(base("error"), recorded)).toMatchObject({
      verdict: "same_path",
      failure: null,
    });
    expect(await dryRunOne(base("success"), recorded)).toMatchObject({
      verdict: "would_fail",
      newlySkipped: ["fallback"],
      failure: { stepPath: "fetch", message: 'Step "fetch" failed: HTTP 503' },
    });
  });

  it("a pure step that reads a secret is not comparable; a run made mostly of guesses is not_comparable", async () => {
    const proposed = orders({ small: { id: "{{ input.id }}", token: "{{ secrets.SHOP_TOKEN }}" } });
    expect(await dryRunOne(proposed, r2)).toMatchObject({
      verdict: "same_path",
      notComparable: ["small"],
    });
    /*
     *   one (http, new) ──▶ two (http, new) ──▶ three (transform)     2 of 3 steps are guesses
     */
    const fresh = {
      schemaVersion: 1,
      name: "Fresh",
      steps: [
        { id: "one", type: "http", config: { method: "GET", url: "https://a.example/" } },
        { id: "two", type: "http", config: { method: "GET", url: "https://b.example/" } },
        { id: "three", type: "transform", config: { value: 3 } },
      ],
    };
    // The new http step has no recording: unverified, and its branch stops there.
    expect(await dryRunOne(fresh, r2)).toMatchObject({
      verdict: "not_comparable",
      notComparable: ["one"],
      outcome: "cannot_tell",
    });
  });
});

// ------------------------------------------------------------------------------------------
// Output changes
//
//   load (http) ──▶ shape (transform) ──▶ done (return)
// ------------------------------------------------------------------------------------------

function greeter(shape: Json, ret: Json = "{{ steps.shape.output.data }}") {
  return {
    schemaVersion: 1,
    name: "Greeter",
    steps: [
      { id: "load", type: "http", config: { method: "GET", url: "https://people.example/1" } },
      { id: "shape", type: "transform", config: { value: shape } },
      { id: "done", type: "return", config: { value: ret } },
    ],
  };
}
const greeted = run(
  "g1",
  {},
  [
    done("load", "http", { status: 200, headers: {}, body: { name: "Ada" } }, "success"),
    done("shape", "transform", { greeting: "Hi Ada" }, "success"),
    done("done", "return", { greeting: "Hi Ada" }),
  ],
  { greeting: "Hi Ada" },
);

describe("dry run: outputs", () => {
  it("(d) a transform reading a field the recorded response lacks changes the output, not the path", async () => {
    expect(
      await dryRunOne(greeter({ greeting: "Hi {{ steps.load.output.data.body.name }}" }), greeted),
    ).toMatchObject({
      verdict: "same_path",
      outputChanged: false,
    });
    expect(
      await dryRunOne(
        greeter({ greeting: "Hi {{ steps.load.output.data.body.nickname }}" }),
        greeted,
      ),
    ).toMatchObject({
      verdict: "same_path",
      outputBefore: { greeting: "Hi Ada" },
      outputAfter: { greeting: "Hi " },
      outputChanged: true,
    });
  });

  it("(d) a changed return value changes the output", async () => {
    const r = await dryRunOne(
      greeter(
        { greeting: "Hi {{ steps.load.output.data.body.name }}" },
        { text: "{{ steps.shape.output.data.greeting }}", v: 2 },
      ),
      greeted,
    );
    expect(r).toMatchObject({
      verdict: "same_path",
      outputAfter: { text: "Hi Ada", v: 2 },
      outputChanged: true,
    });
  });
});

// ------------------------------------------------------------------------------------------
// Loops
//
//   list (http) ──▶ each (loop over list.body.items)
//                     body: score (condition: loop.item.qty > limit)
//                             ├──true──▶ bulk (http)
//                             └──false─▶ single (transform)
// ------------------------------------------------------------------------------------------

function lines(score: Record<string, unknown>) {
  return {
    schemaVersion: 1,
    name: "Lines",
    steps: [
      { id: "list", type: "http", config: { method: "GET", url: "https://shop.example/lines" } },
      {
        id: "each",
        type: "loop",
        config: {
          items: "{{ steps.list.output.data.body.items }}",
          body: {
            steps: [
              { id: "score", type: "condition", config: { condition: score } },
              {
                id: "bulk",
                type: "http",
                config: {
                  method: "POST",
                  url: "https://shop.example/bulk",
                  body: { sku: "{{ loop.item.sku }}" },
                },
              },
              {
                id: "single",
                type: "transform",
                config: { value: { sku: "{{ loop.item.sku }}", one: true } },
              },
            ],
            edges: [
              { from: "score", port: "true", to: "bulk" },
              { from: "score", port: "false", to: "single" },
            ],
          },
        },
      },
    ],
    output: "{{ steps.each.output.data }}",
  };
}
const bulkData = { status: 200, headers: {}, body: { ok: "a" } };
const looped = run(
  "l1",
  {},
  [
    done(
      "list",
      "http",
      {
        status: 200,
        headers: {},
        body: {
          items: [
            { sku: "a", qty: 10 },
            { sku: "b", qty: 2 },
          ],
        },
      },
      "success",
    ),
    done("each[0].score", "condition", true, "true"),
    done("each[0].bulk", "http", bulkData, "success"),
    skipped("each[0].single", "transform"),
    done("each[1].score", "condition", false, "false"),
    skipped("each[1].bulk", "http"),
    done("each[1].single", "transform", { sku: "b", one: true }, "success"),
    done("each", "loop", [bulkData, { sku: "b", one: true }], "done"),
  ],
  [bulkData, { sku: "b", one: true }],
);

describe("dry run: loops", () => {
  it("(f) replays the loop body per iteration through the same driver", async () => {
    expect(await dryRunOne(lines({ ref: "loop.item.qty", gt: 5 }), looped)).toMatchObject({
      verdict: "same_path",
      newlyExecuted: [],
      newlySkipped: [],
      notComparable: [],
      outputChanged: false,
    });
  });

  it("(f) a body threshold change sends iteration 1 to the bulk http step, which was never recorded", async () => {
    const r = await dryRunOne(lines({ ref: "loop.item.qty", gt: 1 }), looped);
    expect(r).toMatchObject({
      runId: "l1",
      verdict: "different_path",
      newlyExecuted: ["each[1].bulk"],
      newlySkipped: ["each[1].single"],
      notComparable: ["each[1].bulk"],
      // The unrecorded http step is unverified: never executed, its branch (and the loop) stop.
      failure: { stepPath: "each[1].bulk" },
      outputBefore: [bulkData, { sku: "b", one: true }],
      outputAfter: null,
      outcome: "cannot_tell",
    });
    expect(r.steps?.map((s) => [s.path, s.verdict])).toEqual([
      ["list", "same"],
      ["each", "unverified"],
      ["each[0].score", "same"],
      ["each[0].bulk", "same"],
      ["each[1].score", "different_output"],
      ["each[1].bulk", "unverified"],
      ["each[1].single", "different_path"],
    ]);
  });

  it("(f) a body condition that fails is reported at the iteration's step path", async () => {
    const r = await dryRunOne(
      lines({ ref: "loop.item.sku", matches: "{{ loop.item.pattern }}" }),
      looped,
    );
    expect(r.verdict).toBe("would_fail");
    expect(r.failure?.stepPath).toBe("each[0].score");
    expect(r.failure?.message).toMatch(
      /^Step "each\[0\]\.score" failed: [\s\S]*takes a pattern string/,
    );
    // Iteration 0 failed, so iteration 1 never started (concurrency 1).
    expect(r.newlySkipped).toEqual(["each[0].bulk", "each[1].score", "each[1].single"]);
  });
});

// ------------------------------------------------------------------------------------------
// Against the real engine: runs recorded by production replay on the same path, and a
// proposal's predicted path is the one production then actually takes.
//
//   gate (condition: input.n > limit)
//     ├──true──▶ ping (emit_event) ──▶ each (loop over input.items)
//     │                                  body: big (condition: loop.item > 1)
//     │                                          ├──true──▶ note (emit_event)
//     │                                          └──false─▶ keep (transform)
//     └──false─▶ quiet (transform)
// ------------------------------------------------------------------------------------------

describe("dry run: agrees with production runs", () => {
  let e: RunHarness;
  beforeAll(async () => {
    e = await startRunHarness("dry-run");
  });
  afterAll(async () => {
    await e?.close();
  });

  const mixed = (limit: number) => ({
    schemaVersion: 1,
    name: "Mixed",
    inputs: { n: { type: "number", required: true }, items: { type: "array", required: true } },
    steps: [
      { id: "gate", type: "condition", config: { condition: { ref: "input.n", gt: limit } } },
      {
        id: "ping",
        type: "emit_event",
        config: { event: "dry.ping", data: { n: "{{ input.n }}" } },
      },
      {
        id: "each",
        type: "loop",
        config: {
          items: "{{ input.items }}",
          body: {
            steps: [
              { id: "big", type: "condition", config: { condition: { ref: "loop.item", gt: 1 } } },
              {
                id: "note",
                type: "emit_event",
                config: { event: "dry.note", data: { item: "{{ loop.item }}" } },
              },
              { id: "keep", type: "transform", config: { value: "{{ loop.item }}" } },
            ],
            edges: [
              { from: "big", port: "true", to: "note" },
              { from: "big", port: "false", to: "keep" },
            ],
          },
        },
      },
      { id: "quiet", type: "transform", config: { value: "quiet {{ input.n }}" } },
    ],
    edges: [
      { from: "gate", port: "true", to: "ping" },
      { from: "ping", to: "each" },
      { from: "gate", port: "false", to: "quiet" },
    ],
    output: { gate: "{{ steps.gate.output.data }}" },
  });

  async function record(workflowId: string, input: Record<string, Json>): Promise<RecordedRun> {
    const runId = await e.start(workflowId, input);
    const row = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    const last = new Map<string, Awaited<ReturnType<RunHarness["steps"]>>[number]>();
    for (const s of await e.steps(runId)) {
      const seen = last.get(s.path);
      if (!seen || s.attempt > seen.attempt) last.set(s.path, s);
    }
    return {
      runId,
      status: row.status,
      versionLabel: null,
      input: row.input as Record<string, Json>,
      trigger: null,
      output: (row.output ?? null) as Json,
      steps: [...last.values()].map((s) => ({
        path: s.path,
        stepId: s.stepId,
        stepType: s.stepType,
        status: s.status,
        output: (s.output ?? null) as Json,
        port: s.port,
        error: s.error ? { message: String(s.error.message) } : null,
      })),
    };
  }
  const executed = (r: RecordedRun) =>
    r.steps
      .filter((s) => s.status === "completed" || s.status === "failed")
      .map((s) => s.path)
      .sort();

  it("predicts the path production takes under the proposal", async () => {
    const base = await e.workflow(mixed(5));
    const input = { n: 7, items: [3, 1] };
    const before = await record(base, input);
    expect(executed(before)).toEqual([
      "each",
      "each[0].big",
      "each[0].note",
      "each[1].big",
      "each[1].keep",
      "gate",
      "ping",
    ]);
    expect(await dryRunOne(mixed(5), before)).toMatchObject({
      verdict: "same_path",
      notComparable: [],
      outputChanged: false,
    });

    const predicted = await dryRunOne(mixed(10), before);
    const after = await record(await e.workflow(mixed(10)), input);
    const afterSet = new Set(executed(after));
    const beforeSet = new Set(executed(before));
    expect(predicted).toMatchObject({
      verdict: "different_path",
      notComparable: [],
      outputAfter: after.output,
    });
    expect([...predicted.newlyExecuted].sort()).toEqual(
      executed(after).filter((p) => !beforeSet.has(p)),
    );
    expect([...predicted.newlySkipped].sort()).toEqual(
      executed(before).filter((p) => !afterSet.has(p)),
    );
  });
});
