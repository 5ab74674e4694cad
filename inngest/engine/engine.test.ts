import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./testing";

let e: EngineHarness;
beforeAll(async () => {
  e = await startEngineHarness("engine");
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
        { id: "greet", type: "transform", config: { value: "{{ vars.greeting }} {{ input.who }}" } },
        { id: "shape", type: "transform", config: { value: { text: "{{ steps.greet.output.data }}", n: 3 } } },
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
    expect(steps[1]!.output).toMatchObject({ type: "transform", data: { text: "Hello Ada", n: 3 } });
    const events = await e.events(runId);
    expect(events).toEqual(expect.arrayContaining(["run.queued", "run.admitted", "run.started", "step.started:greet", "step.completed:greet", "step.completed:shape", "run.finished"]));
  });
});
