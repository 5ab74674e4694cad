import { afterAll, beforeAll, it } from "vitest";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";
const bridge = executorBridge();
const inngest = testClient("perf", bridge);
const N = 30;
const fn = inngest.createFunction({ id: "many", triggers: [{ event: "perf/go" }] }, async ({ step }) => {
  for (let i = 0; i < N; i++) await step.run(`s${i}`, () => i);
  return "ok";
});
let h: Harness;
beforeAll(async () => { h = await startHarness({ client: inngest, functions: [fn], bridge, label: "perf" }); });
afterAll(async () => h?.close());
it("perf", async () => {
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    const run = await h.trigger("perf/go");
    const total = performance.now() - t0;
    const sdk = run.history.filter((x) => x.type === "step.completed").reduce((a, x) => a + (x.durationMs ?? 0), 0);
    console.log(`run ${run.status} total=${total.toFixed(0)}ms perStep=${(total / N).toFixed(1)}ms sdkCallSum=${sdk}ms perStepOverhead=${((total - sdk) / N).toFixed(1)}ms`);
  }
});
it("marks", () => {
  const m = (globalThis as any).__marks as { claimDelay: number; marks: [string, number][] }[];
  const last = m.slice(-30);
  const avg: Record<string, number> = {};
  for (const x of last) { let prev = 0; for (const [n, t] of x.marks) { avg[n] = (avg[n] ?? 0) + (t - prev) / last.length; prev = t; } avg.claimDelay = (avg.claimDelay ?? 0) + x.claimDelay / last.length; }
  console.log(JSON.stringify(avg));
});
