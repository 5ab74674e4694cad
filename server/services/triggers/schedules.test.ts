/**
 * Schedules end to end: the executor's every-minute cron fires evaluate-schedules, which claims
 * the tick and starts the workflow run, which the engine then executes to completion.
 */
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, scheduleTicks, triggers } from "@/db/schema";
import { newId } from "@/lib/ids";
import { retentionBody } from "@/server/services/retention/retention-body";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("schedules");
});
afterAll(async () => {
  await e?.close();
});

describe("schedules through the engine", () => {
  it("the cron function fires a scheduled run that completes, once per tick", async () => {
    const workflowId = await e.workflow({
      schemaVersion: 1,
      name: "Nightly report",
      inputs: { region: { type: "string", required: true } },
      steps: [{ id: "report", type: "transform", config: { value: "{{ input.region }}" } }],
    });
    const triggerId = newId("trg");
    await e.db.db.insert(triggers).values({
      id: triggerId,
      workspaceId: e.ws.workspaceId,
      workflowId,
      kind: "schedule",
      name: "Every minute",
      config: { cron: "* * * * *", timezone: "Europe/Berlin", input: { region: "eu" } },
      createdBy: e.ws.members.editor,
    });
    // Just past the next minute boundary: the executor's cron tick for evaluate-schedules is due.
    const now = e.h.clock.now();
    e.h.clock.advanceTo(now - (now % 60_000) + 60_000 + 1_000);
    await e.h.executor.scanCron();
    const run = await e.h.until(
      async () => {
        const [r] = await e.db.db.select().from(runs).where(eq(runs.triggerId, triggerId));
        return r;
      },
      "the scheduled run",
      30_000,
    );
    const done = await e.waitFor(run.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done).toMatchObject({
      triggerType: "schedule",
      initiatorType: "schedule",
      input: { region: "eu" },
    });
    const steps = await e.steps(run.id);
    expect(steps.find((s) => s.path === "report")?.status).toBe("completed");
    // A second scan of the same minute (another executor, a retry) fires nothing more.
    await e.h.executor.scanCron();
    const ticks = await e.db.db
      .select()
      .from(scheduleTicks)
      .where(eq(scheduleTicks.triggerId, triggerId))
      .orderBy(asc(scheduleTicks.tick));
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({ status: "fired", runId: run.id });
    expect(await e.db.db.select().from(runs).where(eq(runs.triggerId, triggerId))).toHaveLength(1);
  });

  it("daily retention deletes tick history older than the run retention", async () => {
    const [trigger] = await e.db.db.select().from(triggers).limit(1);
    const old = new Date(e.h.clock.now() - 200 * 86_400_000);
    await e.db.db.insert(scheduleTicks).values({
      triggerId: trigger!.id,
      workspaceId: trigger!.workspaceId,
      tick: old,
      status: "missed",
      reason: "downtime: misfire policy skip",
    });
    await retentionBody();
    const left = await e.db.db
      .select()
      .from(scheduleTicks)
      .where(eq(scheduleTicks.triggerId, trigger!.id));
    expect(left.map((x) => x.status)).toEqual(["fired"]);
  });
});
