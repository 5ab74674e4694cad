import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";

const bridge = executorBridge();
const inngest = testClient("basic", bridge);
const calls: Record<string, number> = {};
const bump = (k: string) => (calls[k] = (calls[k] ?? 0) + 1);

const single = inngest.createFunction({ id: "single", triggers: [{ event: "basic/single" }] }, async ({ event, step }) => {
  const a = await step.run("a", () => {
    bump("single.a");
    return { n: (event.data as { n: number }).n + 1 };
  });
  const b = await step.run("b", () => a.n * 2);
  return { a, b };
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ client: inngest, functions: [single], bridge, label: "basic" });
});
afterAll(async () => h?.close());

describe("single steps", () => {
  it("runs steps and completes with the function's return value", async () => {
    const run = await h.trigger("basic/single", { n: 1 });
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ a: { n: 2 }, b: 4 });
    expect(run.steps.map((s) => [s.name, s.output])).toEqual([["a", { data: { n: 2 } }], ["b", { data: 4 }]]);
  });
});
