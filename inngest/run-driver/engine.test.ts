import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "@/db/client";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("engine");
});
afterAll(async () => {
  await e?.close();
});

describe("run engine: basics", () => {
  it("runs a linear chain with templates and records every step", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Chain",
      inputs: { who: { type: "string", required: true } },
      variables: { greeting: "Hello" },
      steps: [
        {
          id: "greet",
          type: "transform",
          config: { value: "{{ vars.greeting }} {{ input.who }}" },
        },
        {
          id: "shape",
          type: "transform",
          config: { value: { text: "{{ steps.greet.output.data }}", n: 3 } },
        },
      ],
      output: "{{ steps.shape.output.data }}",
    });
    const runId = await e.start(wf, { who: "Ada" });
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ text: "Hello Ada", n: 3 });
    const steps = await e.steps(runId);
    expect(steps.map((s) => [s.path, s.status, s.attempt])).toEqual([
      ["greet", "completed", 1],
      ["shape", "completed", 1],
    ]);
    expect(steps[1]!.output).toMatchObject({
      type: "transform",
      data: { text: "Hello Ada", n: 3 },
    });
    const events = await e.events(runId);
    expect(events).not.toContain("run.admitted");
    expect(events).toEqual(
      expect.arrayContaining([
        "run.queued", // admitted at creation: no separate run.admitted
        "run.started",
        "step.started:greet",
        "step.completed:greet",
        "step.completed:shape",
        "run.finished",
      ]),
    );
  });
});

describe("run engine: SDK requests per step", () => {
  /*
   *   s0 ─▶ s1 ─▶ … ─▶ s9      a lone chain: every step runs inline in the discovery request
   *                              (no race-mode tag, so no StepPlanned + targeted call per step)
   *
   *   a ─┬─▶ j                 parallel branches: tagged race-mode, planned and called one by one
   *   b ─┘
   * The steps are emit_event (not pure: pure steps run in waves, see waves.test.ts).
   */
  const history = async (runId: string) => {
    const rows = await execRows<{ type: string; n: number }>(
      e.db.db,
      sql`select h.type, count(*)::int as n from executor_history h
          join runs r on r.inngest_run_id = h.run_id where r.id = ${runId} group by h.type`,
    );
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  };

  it("runs a lone chain's steps inline: no step is planned for a separate call", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Lone chain",
      steps: Array.from({ length: 10 }, (_, i) => ({
        id: `s${i}`,
        type: "emit_event",
        config: { event: "lone.step", data: { i } },
      })),
    });
    const runId = await e.start(wf);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
    const h = await history(runId);
    expect(h["step.planned"] ?? 0).toBe(0);
    expect(h["step.completed"]).toBeGreaterThanOrEqual(10);
  });

  it("plans parallel branches for their own calls (race mode) and still completes", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Two branches",
      steps: [
        { id: "a", type: "emit_event", config: { event: "branch.a" } },
        { id: "b", type: "emit_event", config: { event: "branch.b" } },
        { id: "j", type: "emit_event", config: { event: "branch.j" } },
      ],
      edges: [
        { from: "a", to: "j" },
        { from: "b", to: "j" },
      ],
    });
    const runId = await e.start(wf);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
    expect((await history(runId))["step.planned"]).toBeGreaterThanOrEqual(2);
  });
});

describe("run engine: graph semantics", () => {
  /*
   *   check ──true──▶ hot ──▶ join
   *     └────false──▶ cold ──▶ cold2 ──┘   (untaken branch: cold, cold2 skipped; join still runs)
   */
  it("skips the untaken branch and its children, and still runs the join", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Branches",
      inputs: { n: { type: "number", required: true } },
      steps: [
        { id: "check", type: "condition", config: { condition: { ref: "input.n", gt: 5 } } },
        { id: "hot", type: "transform", config: { value: "hot" } },
        { id: "cold", type: "transform", config: { value: "cold" } },
        { id: "cold2", type: "transform", config: { value: "colder" } },
        { id: "join", type: "transform", config: { value: "{{ lastOutput.data }}" } },
      ],
      edges: [
        { from: "check", port: "true", to: "hot" },
        { from: "check", port: "false", to: "cold" },
        { from: "cold", to: "cold2" },
        { from: "hot", to: "join" },
        { from: "cold2", to: "join" },
      ],
      output: "{{ steps.join.output.data }}",
    });
    const runId = await e.start(wf, { n: 9 });
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("hot");
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.check!.port).toBe("true");
    // The comparison is recorded with its resolved operands (the run page shows 9 > 5 → true).
    expect(steps.check!.output).toMatchObject({
      data: true,
      meta: { checks: [{ ref: "input.n", op: "gt", actual: "9", expected: "5", result: true }] },
    });
    expect(steps.cold!.status).toBe("skipped");
    expect(steps.cold!.skipReason).toMatch(/branch_not_taken/);
    expect(steps.cold2!.status).toBe("skipped");
    expect(steps.join!.status).toBe("completed");
  });

  /*
   *   boom ──error──▶ recover        (handled failure: run completes)
   *   side                           (independent branch still runs)
   */
  it("handles a failure on an error port and classifies it as a user error", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Error port",
      steps: [
        {
          id: "boom",
          type: "code",
          config: { source: "export default function () { throw new Error('kaboom'); }" },
        },
        { id: "recover", type: "transform", config: { value: "recovered" } },
        { id: "side", type: "transform", config: { value: 1 } },
      ],
      edges: [{ from: "boom", port: "error", to: "recover" }],
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.boom!.status).toBe("failed");
    expect(steps.boom!.failureClass).toBe("user");
    expect(JSON.stringify(steps.boom!.error)).toContain("kaboom");
    expect(steps.recover!.status).toBe("completed");
    expect(steps.side!.status).toBe("completed");
  });

  it("fails the run on an unhandled failure, with the step named in the error", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Unhandled",
      steps: [
        {
          id: "boom",
          type: "code",
          config: { source: "export default function () { throw new Error('nope'); }" },
        },
        { id: "after", type: "transform", config: { value: 1 } },
      ],
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "unhandled_failure", stepId: "boom" });
    expect((run.error as { message: string }).message).toContain("nope");
    const after = (await e.steps(runId)).find((s) => s.path === "after");
    expect(after?.status).toBe("skipped");
  });

  /*
   *   a ─┬─▶ b1 ─┐
   *      ├─▶ b2 ─┼─▶ join       maxParallel 2 and a return in the middle of nowhere
   *      └─▶ b3 ─┘
   */
  it("runs independent branches in parallel and joins them", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Fan out",
      constraints: { maxParallel: 2 },
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b1", type: "transform", config: { value: "one" } },
        { id: "b2", type: "transform", config: { value: "two" } },
        { id: "b3", type: "transform", config: { value: "three" } },
        {
          id: "join",
          type: "transform",
          config: {
            value: [
              "{{ steps.b1.output.data }}",
              "{{ steps.b2.output.data }}",
              "{{ steps.b3.output.data }}",
            ],
          },
        },
      ],
      edges: [
        { from: "a", to: "b1" },
        { from: "a", to: "b2" },
        { from: "a", to: "b3" },
        { from: "b1", to: "join" },
        { from: "b2", to: "join" },
        { from: "b3", to: "join" },
      ],
      output: "{{ steps.join.output.data }}",
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual(["one", "two", "three"]);
  });

  it("ends the run at a return step with its value", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Return",
      steps: [
        { id: "a", type: "transform", config: { value: { x: 1 } } },
        {
          id: "done",
          type: "return",
          config: { value: { result: "{{ steps.a.output.data.x }}" } },
        },
      ],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ result: 1 });
  });

  it("runs loop bodies per item with bounded concurrency and collects their values", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Loop",
      inputs: { items: { type: "array", required: true } },
      steps: [
        {
          id: "each",
          type: "loop",
          config: {
            items: "{{ input.items }}",
            concurrency: 2,
            body: {
              steps: [
                {
                  id: "double",
                  type: "code",
                  config: {
                    source: "export default function (input) { return input.n * 2 }",
                    input: { n: "{{ loop.item }}" },
                  },
                },
              ],
            },
          },
        },
      ],
      output: "{{ steps.each.output.data }}",
    });
    const run = await e.waitFor(await e.start(wf, { items: [1, 2, 3] }), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual([2, 4, 6]);
    const paths = (await e.steps(run.id)).map((s) => s.path);
    expect(paths).toEqual(
      expect.arrayContaining(["each", "each[0].double", "each[1].double", "each[2].double"]),
    );
  });

  it("runs a subworkflow as a linked child run and uses its output", async () => {
    const child = await e.workflow({
      schemaVersion: 1,
      name: "Child",
      inputs: { x: { type: "number", required: true } },
      steps: [
        {
          id: "sq",
          type: "code",
          config: {
            source: "export default function (i) { return i.x * i.x }",
            input: { x: "{{ input.x }}" },
          },
        },
      ],
      output: "{{ steps.sq.output.data }}",
    });
    const parent = await e.workflow({
      schemaVersion: 1,
      name: "Parent",
      steps: [
        { id: "call", type: "subworkflow", config: { workflow: child, input: { x: 7 } } },
        { id: "use", type: "transform", config: { value: "{{ steps.call.output.data }}" } },
      ],
      output: "{{ steps.use.output.data }}",
    });
    const run = await e.waitFor(await e.start(parent), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(49);
    const call = (await e.steps(run.id)).find((s) => s.path === "call")!;
    const childRunId = (call.output as { meta: { childRunId: string } }).meta.childRunId;
    const childRun = await e.waitFor(childRunId, ["completed"]);
    expect(childRun.parentRunId).toBe(run.id);
    expect(childRun.rootRunId).toBe(run.id);
  });

  it("fails a run that exceeds maxSteps", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Too many",
      constraints: { maxSteps: 2 },
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
      ],
    });
    // maxSteps also caps the number of defined steps, so two steps with maxSteps 2 is allowed…
    const ok = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(ok.status).toBe("completed");
    const loopWf = await e.workflow({
      schemaVersion: 1,
      name: "Too many attempts",
      constraints: { maxSteps: 3 },
      steps: [
        {
          id: "each",
          type: "loop",
          config: {
            items: [1, 2, 3, 4],
            body: { steps: [{ id: "x", type: "transform", config: { value: 1 } }] },
          },
        },
      ],
    });
    // …but a loop executes more attempts than it defines.
    const run = await e.waitFor(await e.start(loopWf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "max_steps" });
  });
});
