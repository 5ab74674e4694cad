import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { getRun } from "./get-run";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("getrunexecution");
});
afterAll(async () => {
  await e?.close();
});

describe("getRun: the engine's execution", () => {
  it("names the execution that drove the run, with a dashboard link only on a real Inngest", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Execution id",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const done = await e.waitFor(await e.start(wf), ["completed"]);
    expect(done.inngestRunId).toBeTruthy();

    const viewer = e.ws.ctx("viewer");
    const embedded = await getRun({ ctx: viewer, input: { runId: done.id } });
    expect(embedded.executionId).toBe(done.inngestRunId);
    expect(embedded.executionUrl).toBeNull();

    const onInngest = await getRun({
      ctx: {
        ...viewer,
        config: { ...viewer.config, engine: { kind: "inngest", baseUrl: "http://127.0.0.1:8288" } },
      },
      input: { runId: done.id },
    });
    expect(onInngest.executionUrl).toBe(`http://127.0.0.1:8288/run?runID=${done.inngestRunId}`);
  });
});
