/**
 * Waves (engine version 2, waves.ts) through the real executor and SDK: what a run costs in
 * durable steps (memo entries), that the rows, outputs and events equal the per-step path's
 * (engine version 1), that emit_event between waves stays exactly-once, and that a run whose
 * memoized plan has no engine version (started before waves) finishes on the per-step path.
 */
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "@/db/client";
import { outbox, runEvents, runs } from "@/db/schema";
import { getRuntime } from "@/server/runtime";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("waves");
});
afterAll(async () => {
  await e?.close();
});

/**
 * The run's durable steps (executor memo entries), in completion order, once its execution ended
 * (the run row ends inside the last step, before that step's memo is written).
 */
async function memo(runId: string): Promise<string[]> {
  await e.h.until(async () => {
    const [x] = await execRows<{ status: string }>(
      e.db.db,
      sql`select x.status from executor_runs x join runs r on r.inngest_run_id = x.id where r.id = ${runId}`,
    );
    return x && !["queued", "running"].includes(x.status) ? x : undefined;
  }, `the execution of run ${runId} to end`);
  const rows = await execRows<{ name: string }>(
    e.db.db,
    sql`select s.name from executor_steps s join runs r on r.inngest_run_id = s.run_id
        where r.id = ${runId} order by s.seq`,
  );
  return rows.map((r) => r.name);
}

/** Starts a run whose plan gets engine version `v`, and waits for it to end. */
async function runOn(v: 1 | 2, workflowId: string, input: Record<string, unknown> = {}) {
  const config = getRuntime().config;
  const was = config.engineVersion;
  config.engineVersion = v;
  try {
    const runId = await e.start(workflowId, input);
    return await e.waitFor(runId, ["completed", "failed", "cancelled", "timed_out"]);
  } finally {
    config.engineVersion = was;
  }
}

/** Everything a run recorded, minus ids, times and durations: must not depend on the engine version. */
async function recorded(runId: string) {
  const [run] = await e.db.db.select().from(runs).where(eq(runs.id, runId));
  const steps = (await e.steps(runId))
    .map((s) => ({
      path: s.path,
      attempt: s.attempt,
      type: s.stepType,
      status: s.status,
      input: s.input,
      output: withoutDuration(s.output),
      error: s.error,
      failureClass: s.failureClass,
      port: s.port,
      skipReason: s.skipReason,
    }))
    .sort((a, b) => `${a.path}@${a.attempt}`.localeCompare(`${b.path}@${b.attempt}`));
  const events = await e.db.db
    .select({ type: runEvents.type, path: runEvents.stepPath, data: runEvents.data })
    .from(runEvents)
    .where(eq(runEvents.runId, runId))
    .orderBy(asc(runEvents.id));
  const eventsByStep = new Map<string, unknown[]>();
  for (const ev of events) {
    const { durationMs: _d, ...data } = ev.data as Record<string, unknown>;
    const key = ev.path ?? "(run)";
    eventsByStep.set(key, [...(eventsByStep.get(key) ?? []), [ev.type, data]]);
  }
  return {
    status: run!.status,
    output: run!.output,
    error: run!.error,
    stepAttempts: run!.stepAttempts,
    steps,
    // Per step in order (steps of parallel branches interleave differently); run-level events too.
    events: Object.fromEntries(
      [...eventsByStep].map(([k, v]) => [k, k === "(run)" ? v.map((x) => (x as [string])[0]) : v]),
    ),
  };
}

/** A code step's output says how long it ran. */
function withoutDuration(output: unknown): unknown {
  const o = output as { meta?: Record<string, unknown> } | null;
  if (!o?.meta || !("durationMs" in o.meta)) return output;
  const { durationMs: _d, ...meta } = o.meta;
  return { ...o, meta };
}

describe("waves: durable steps per run", () => {
  /*
   *   s0 ─▶ s1 ─▶ … ─▶ s39       one wave, folded into the plan step (and the finish with it)
   */
  it("runs a chain of pure steps as one durable step (the plan), and as 42 on the per-step path", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Pure chain",
      inputs: { n: { type: "number", required: true } },
      constraints: { maxSteps: 100 },
      steps: Array.from({ length: 40 }, (_, i) =>
        i % 10 === 5
          ? { id: `s${i}`, type: "condition", config: { condition: { ref: "input.n", gt: 0 } } }
          : { id: `s${i}`, type: "transform", config: { value: `{{ input.n }}-${i}` } },
      ),
      edges: Array.from({ length: 39 }, (_, i) =>
        i % 10 === 5
          ? { from: `s${i}`, port: "true", to: `s${i + 1}` }
          : { from: `s${i}`, to: `s${i + 1}` },
      ),
      output: "{{ steps.s39.output.data }}",
    });
    const v2 = await runOn(2, wf, { n: 3 });
    expect(v2.status, JSON.stringify(v2.error)).toBe("completed");
    expect(v2.output).toBe("3-39");
    expect(await memo(v2.id)).toEqual(["plan"]);
    const steps = await e.steps(v2.id);
    expect(steps.map((s) => s.path)).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`));
    expect(steps.every((s) => s.status === "completed" && s.attempt === 1)).toBe(true);
    expect(v2.stepAttempts).toBe(40);

    const v1 = await runOn(1, wf, { n: 3 });
    expect(await memo(v1.id)).toHaveLength(42); // plan, 40 steps, finish
    expect(await recorded(v2.id)).toEqual(await recorded(v1.id));
  });

  /*
   *   a ─▶ announce (emit_event) ─▶ b ─▶ again (emit_event) ─▶ c ─▶ d (return)
   *   plan (+ wave a) · announce@1 · wave b · again@1 · wave c, d + the finish
   */
  it("splits a chain at side effects: each event written once, with its step; steps after a wave still run inline", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Announce between waves",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        {
          id: "announce",
          type: "emit_event",
          config: { event: "waves.announced", data: { a: "{{ steps.a.output.data }}" } },
        },
        { id: "b", type: "transform", config: { value: 2 } },
        { id: "again", type: "emit_event", config: { event: "waves.again" } },
        { id: "c", type: "transform", config: { value: 3 } },
        { id: "d", type: "return", config: { value: { done: "{{ steps.c.output.data }}" } } },
      ],
    });
    const run = await runOn(2, wf);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ done: 3 });
    expect(await memo(run.id)).toEqual([
      "plan",
      "announce@1",
      "run~wave#1",
      "again@1",
      "run~wave#2",
    ]);
    // Written once: to the outbox, or (embedded executor, nothing for the relay's hooks to do)
    // straight into the executor's events (server/services/run-state/workflow-events.ts).
    for (const name of ["waves.announced", "waves.again"]) {
      const relayed = await e.db.db.select().from(outbox).where(eq(outbox.name, name));
      const [direct] = await execRows<{ n: number }>(
        e.db.db,
        sql`select count(*)::int as n from executor_events where payload->'data'->>'name' = ${name}`,
      );
      expect(relayed.length + direct!.n).toBe(1);
    }
    // A wave counts as a chain only while it runs: had it leaked, `again` would have been tagged
    // race-mode and planned for a call of its own.
    const [planned] = await execRows<{ n: number }>(
      e.db.db,
      sql`select count(*)::int as n from executor_history h join runs r on r.inngest_run_id = h.run_id
          where r.id = ${run.id} and h.type = 'step.planned'`,
    );
    expect(planned!.n).toBe(0);
    expect(await e.events(run.id)).toEqual([
      "run.queued", // admitted at creation: no separate run.admitted
      "run.started",
      "step.started:a",
      "step.completed:a",
      "step.started:announce",
      "step.completed:announce",
      "step.started:b",
      "step.completed:b",
      "step.started:again",
      "step.completed:again",
      "step.started:c",
      "step.completed:c",
      "step.started:d",
      "step.completed:d",
      "run.finished",
    ]);
  });
});

describe("waves: the same rows, outputs and events as the per-step path", () => {
  /*
   *   start ─▶ check ─true──▶ hot ─▶ calc (code) ─┐
   *     │        └──false─▶ cold ────────────────┴─▶ join ─▶ ret (return)
   *     ├─▶ maybe (when input.n < 0)
   *     ├─▶ strict ──error──▶ handled          (a condition that cannot be evaluated: user failure)
   *     └─▶ loose ──true, onFailure continue──▶ after     (fails the same way)
   */
  const definition = {
    schemaVersion: 1,
    name: "Mixed",
    inputs: {
      n: { type: "number", required: true },
      text: { type: "string", required: true },
    },
    steps: [
      { id: "start", type: "transform", config: { value: { n: "{{ input.n }}" } } },
      { id: "check", type: "condition", config: { condition: { ref: "input.n", gt: 5 } } },
      { id: "hot", type: "transform", config: { value: "hot {{ input.n }}" } },
      {
        id: "calc",
        type: "code",
        config: {
          source: "export default function (i) { return i.n * 2 }",
          input: { n: "{{ steps.start.output.data.n }}" },
        },
      },
      { id: "cold", type: "transform", config: { value: "cold" } },
      {
        id: "join",
        type: "transform",
        config: { value: { last: "{{ lastOutput.data }}", n: "{{ input.n }}" } },
      },
      {
        id: "maybe",
        type: "transform",
        when: { ref: "input.n", lt: 0 },
        config: { value: "negative" },
      },
      {
        id: "strict",
        type: "condition",
        config: { condition: { ref: "input.text", matches: "^a+$" } },
      },
      { id: "handled", type: "transform", config: { value: "handled" } },
      {
        id: "loose",
        type: "condition",
        config: { condition: { ref: "input.text", matches: "b" } },
      },
      { id: "after", type: "transform", config: { value: "after" } },
      {
        id: "ret",
        type: "return",
        config: { value: { join: "{{ steps.join.output.data }}" } },
      },
    ],
    edges: [
      { from: "start", to: "check" },
      { from: "check", port: "true", to: "hot" },
      { from: "check", port: "false", to: "cold" },
      { from: "hot", to: "calc" },
      { from: "calc", to: "join" },
      { from: "cold", to: "join" },
      { from: "join", to: "ret" },
      { from: "start", to: "maybe" },
      { from: "start", to: "strict" },
      { from: "strict", port: "error", to: "handled" },
      { from: "start", to: "loose" },
      { from: "loose", port: "true", to: "after", onFailure: "continue" },
    ],
  };

  it.each([
    ["the true branch (a code step between waves)", 9],
    ["the false branch", 2],
  ])("%s", async (_label, n) => {
    const wf = await e.workflow(definition);
    // A subject over 10,000 characters makes `matches` throw: the condition step fails (user).
    const input = { n, text: "a".repeat(10_001) };
    const v2 = await runOn(2, wf, input);
    const v1 = await runOn(1, wf, input);
    expect(v2.status, JSON.stringify(v2.error)).toBe("completed");
    const r2 = await recorded(v2.id);
    expect(r2).toEqual(await recorded(v1.id));
    const byPath = Object.fromEntries(r2.steps.map((s) => [s.path, s]));
    expect(byPath.strict).toMatchObject({ status: "failed", failureClass: "user" });
    expect(byPath.handled!.status).toBe("completed");
    expect(byPath.loose!.status).toBe("failed");
    expect(byPath.after!.status).toBe("completed");
    expect(byPath.maybe).toMatchObject({
      status: "skipped",
      // The operands that made `when` false are part of the reason.
      skipReason: expect.stringMatching(new RegExp(`when_false.*input\\.n is ${n}, needs < 0`)),
    });
    expect(byPath[n > 5 ? "cold" : "hot"]!.status).toBe("skipped");
    expect(v2.output).toEqual({ join: { last: n > 5 ? n * 2 : "cold", n } });
    // Fewer durable steps: waves and the per-step path's one per step.
    expect((await memo(v2.id)).length).toBeLessThan((await memo(v1.id)).length);
  });
});

describe("waves: limits count as before", () => {
  /*
   *   first ─▶ each (loop over 4 items: x ─▶ y) ─▶ last      maxSteps 6: stops inside iteration 1
   */
  it("stops at the same step attempt under maxSteps, with the same rows and events", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Limited",
      constraints: { maxSteps: 6 },
      steps: [
        { id: "first", type: "transform", config: { value: 0 } },
        {
          id: "each",
          type: "loop",
          config: {
            items: [1, 2, 3, 4],
            body: {
              steps: [
                { id: "x", type: "transform", config: { value: "{{ loop.item }}" } },
                { id: "y", type: "transform", config: { value: "{{ steps.x.output.data }}" } },
              ],
            },
          },
        },
        { id: "last", type: "transform", config: { value: 1 } },
      ],
    });
    const v2 = await runOn(2, wf);
    const v1 = await runOn(1, wf);
    expect(v2.status).toBe("failed");
    expect(v2.error).toMatchObject({ code: "max_steps" });
    expect(await recorded(v2.id)).toEqual(await recorded(v1.id));
  });
});

describe("waves: runs started before waves", () => {
  /*
   *   pause (delay) ─▶ a ─▶ check ─true─▶ b ─▶ done (return)
   *                           └─false─▶ c (skipped)
   * The plan memo loses its engine version while the run sleeps, as a plan memoized by the code
   * before waves would look: the run must finish on the per-step path.
   */
  it("finishes a run whose memoized plan has no engine version on the per-step path", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "In flight",
      inputs: { go: { type: "boolean", required: true } },
      steps: [
        { id: "pause", type: "delay", config: { duration: "5s" } },
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "check", type: "condition", config: { condition: { ref: "input.go", eq: true } } },
        { id: "b", type: "transform", config: { value: "{{ steps.a.output.data }}" } },
        { id: "c", type: "transform", config: { value: "no" } },
        { id: "done", type: "return", config: { value: "{{ steps.b.output.data }}" } },
      ],
      edges: [
        { from: "pause", to: "a" },
        { from: "a", to: "check" },
        { from: "check", port: "true", to: "b" },
        { from: "check", port: "false", to: "c" },
        { from: "b", to: "done" },
      ],
    });
    const runId = await e.start(wf, { go: true });
    await e.waitFor(runId, ["waiting"]);
    const rewritten = await execRows<{ step_id: string }>(
      e.db.db,
      sql`update executor_steps s set output = jsonb_set(s.output, '{data,plan}', (s.output #> '{data,plan}') - 'engineVersion')
          from runs r where r.id = ${runId} and s.run_id = r.inngest_run_id and s.name = 'plan'
            and s.output #> '{data,plan,engineVersion}' is not null
          returning s.step_id`,
    );
    expect(rewritten).toHaveLength(1);
    const run = await e.waitFor(runId, ["completed", "failed"], { advanceMs: 1_000 });
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(1);
    const names = await memo(runId);
    // One durable step per step, skips recorded by their planning round, and a finish step.
    expect(names).toEqual(expect.arrayContaining(["a@1", "check@1", "b@1", "done@1", "finish"]));
    expect(names.some((n) => n.includes("~wave#"))).toBe(false);
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.c!.status).toBe("skipped");
    expect(steps.done!.status).toBe("completed");
  });
});
