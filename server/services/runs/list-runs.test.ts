import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRuns } from "@/server/services/runs/list-runs";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("list-runs");
});
afterAll(async () => {
  await e?.close();
});

describe("listRuns (runs list page)", () => {
  it("filters by workflow, status and trigger, names the initiator, and pages with a cursor", async () => {
    const quick = await e.workflow({
      schemaVersion: 1,
      name: "Quick",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    const gated = await e.workflow({
      schemaVersion: 1,
      name: "Gated",
      steps: [{ id: "ask", type: "approval", config: { prompt: "ok?" } }],
    });
    const r1 = await e.start(quick);
    const r2 = await e.start(quick);
    const r3 = await e.start(gated);
    await e.waitFor(r1, ["completed"]);
    await e.waitFor(r2, ["completed"]);
    await e.waitFor(r3, ["waiting"]);
    const ctx = e.ws.ctx("viewer");

    const all = await listRuns({ ctx, input: {} });
    expect(all.items.map((r) => r.id)).toEqual(expect.arrayContaining([r1, r2, r3]));
    const mine = all.items.find((r) => r.id === r3)!;
    expect(mine).toMatchObject({ workflowName: "Gated", triggerType: "manual", status: "waiting" });
    expect(mine.initiatorType).toBe("user");
    expect(typeof mine.initiatorName).toBe("string");
    expect(mine.initiatorName!.length).toBeGreaterThan(0);

    const byWf = await listRuns({ ctx, input: { workflowId: quick } });
    expect(byWf.items.map((r) => r.id).sort()).toEqual([r1, r2].sort());
    const waiting = await listRuns({ ctx, input: { status: ["waiting"] } });
    expect(waiting.items.map((r) => r.id)).toContain(r3);
    expect(waiting.items.every((r) => r.status === "waiting")).toBe(true);
    expect((await listRuns({ ctx, input: { trigger: "schedule" } })).items).toEqual([]);
    // Waiting for longer than a day: not this one.
    expect(
      (await listRuns({ ctx, input: { waitingLongerThanMinutes: 1440 } })).items.map((r) => r.id),
    ).not.toContain(r3);

    const page1 = await listRuns({ ctx, input: { workflowId: quick, limit: 1 } });
    expect(page1.items).toHaveLength(1);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await listRuns({
      ctx,
      input: { workflowId: quick, limit: 1, cursor: page1.nextCursor! },
    });
    expect(page2.items).toHaveLength(1);
    expect(page2.items[0]!.id).not.toBe(page1.items[0]!.id);
    expect(page2.nextCursor).toBeNull();
  });
});
