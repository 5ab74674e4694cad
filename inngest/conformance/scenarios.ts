/**
 * The conformance corpus: every scenario runs unchanged on the embedded executor, `inngest dev`
 * and `inngest start` (engines.ts), and asserts the same run outcome, step records and run events
 * on each — the expectations are written once, here. Side effects go to a counting stub, so
 * "exactly once per attempt" is checked on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceHarness, PreparedEngine } from "./engines";
import {
  countStep,
  openWorkspace,
  records,
  scriptStep,
  startCountingStub,
  type CountingStub,
} from "./fixtures";

export interface ScenarioContext {
  e: ConformanceHarness;
  stub: CountingStub;
  /** Variables every scenario's definition gets (`{{ vars.stub }}`, `{{ vars.effects }}`). */
  vars: Record<string, string>;
}

type Scenario = (c: ScenarioContext) => Promise<void>;

const RUN_TIMEOUT = 90_000;

/** Fan-out of `n` side-effecting branches, a join with an http and a script step after it. */
export function fanOutDefinition(name: string, n: number, tag: string) {
  const branches = Array.from({ length: n }, (_, i) => countStep(`b${i}`, `${tag}-b${i}`));
  return {
    schemaVersion: 1,
    name,
    steps: [
      { id: "start", type: "transform", config: { value: { n } } },
      ...branches,
      countStep("join", `${tag}-join`),
      scriptStep("after", `${tag}-after`),
      { id: "done", type: "transform", config: { value: "{{ steps.join.output.data.status }}" } },
    ],
    edges: [
      ...branches.map((b) => ({ from: "start", to: b.id })),
      ...branches.map((b) => ({ from: b.id, to: "join" })),
      { from: "join", to: "after" },
      { from: "after", to: "done" },
    ],
    output: "{{ steps.done.output.data }}",
  };
}

export const scenarios: Record<string, Scenario> = {
  async "a chain of pure and side-effecting steps"({ e, stub, vars }) {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Chain",
      variables: vars,
      steps: [
        { id: "a", type: "transform", config: { value: { x: "{{ input.x }}" } } },
        countStep("b", "chain-b"),
        { id: "c", type: "code", config: { source: "export default (i) => i.x * 2", input: "{{ steps.a.output.data }}" } },
        { id: "d", type: "return", config: { value: { doubled: "{{ steps.c.output.data }}" } } },
      ],
      inputs: { x: { type: "number", default: 21 } },
    });
    const runId = await e.start(wf, { x: 21 });
    const run = await e.waitFor(runId, ["completed", "failed"], { timeoutMs: RUN_TIMEOUT });
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ doubled: 42 });
    expect(stub.count("chain-b")).toBe(1);
    const r = await records(e, runId);
    expect(r.steps).toEqual(["a@1:completed", "b@1:completed", "c@1:completed", "d@1:completed"]);
    expect(r.events).toEqual(
      [
        "run.queued",
        "run.started",
        ...["a", "b", "c", "d"].flatMap((s) => [`step.started:${s}`, `step.completed:${s}`]),
        "run.finished",
      ].sort(),
    );
  },

  async "fan-out and join with side effects: every effect exactly once"({ e, stub, vars }) {
    const wf = await e.workflow({ ...fanOutDefinition("Fan-out", 4, "fan"), variables: vars });
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) runIds.push(await e.start(wf));
    for (const runId of runIds) {
      const run = await e.waitFor(runId, ["completed", "failed"], { timeoutMs: RUN_TIMEOUT });
      expect(run.status, JSON.stringify(run.error)).toBe("completed");
      expect(run.output).toBe(200);
    }
    for (let i = 0; i < 4; i++) expect(stub.count(`fan-b${i}`)).toBe(3);
    expect(stub.count("fan-join")).toBe(3);
    expect(stub.lines("fan-after")).toBe(3);
    const r = await records(e, runIds[0]!);
    expect(r.steps).toEqual(
      [
        "start@1:completed",
        ...[0, 1, 2, 3].map((i) => `b${i}@1:completed`),
        "join@1:completed",
        "after@1:completed",
        "done@1:completed",
      ].sort(),
    );
  },
};

/** Registers the whole corpus for one engine (skipped with the reason when it is not here). */
export function defineConformance(prepared: PreparedEngine, only?: string[]) {
  const d = prepared.skip ? describe.skip : describe;
  if (prepared.skip) console.warn(`conformance on ${prepared.kind} skipped: ${prepared.skip}`);
  d(`conformance on ${prepared.kind}`, () => {
    const c = {} as ScenarioContext;
    beforeAll(async () => {
      c.e = await prepared.start(`conf${prepared.kind}`);
      c.stub = await startCountingStub();
      c.vars = { stub: c.stub.origin, effects: c.stub.file };
      await openWorkspace(c.e);
    }, 180_000);
    afterAll(async () => {
      await c.stub?.close();
      await c.e?.close();
    });
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only && !only.includes(name)) continue;
      it.concurrent(name, () => scenario(c), 240_000);
    }
  });
}
