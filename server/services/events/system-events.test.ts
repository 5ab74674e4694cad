/**
 * System events an event trigger can subscribe to besides a run's outcome (SPEC §7): `run.started`
 * when a run starts executing, and `task.completed` / `task.failed` when a task step's task is
 * settled. A workflow that starts itself on its own `run.started` stops at the event chain limit,
 * as one that restarts on `run.completed` does.
 *
 *   Source run ──start──▶ outbox: run.started ──relay──▶ trigger "run.started" ──▶ Listener run
 *   task settled ──────▶ outbox: task.completed | task.failed ──▶ trigger ──▶ Listener run
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, triggerDeliveries } from "@/db/schema";
import { MAX_EVENT_CHAIN_DEPTH } from "@/lib/triggers/events";
import { emitEvents } from "@/server/services/events/emit-events";
import { completeTask } from "@/server/services/tasks/complete-task";
import { failTask } from "@/server/services/tasks/fail-task";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("system-events");
});
afterAll(async () => {
  await e?.close();
});

async function eventTrigger(workflowId: string, config: Record<string, unknown>) {
  const r = await createTrigger({
    ctx: e.ws.ctx("editor"),
    input: { kind: "event", workflowId, name: `on ${String(config.event)}`, config },
  });
  return r.trigger.id;
}
const runsOf = (workflowId: string) =>
  e.db.db
    .select()
    .from(runs)
    .where(and(eq(runs.workflowId, workflowId), eq(runs.triggerType, "event")));
const firstRunOf = async (workflowId: string) => {
  const run = await e.h.until(async () => (await runsOf(workflowId))[0], "an event-started run");
  return e.waitFor(run.id, ["completed", "failed"]);
};
const deliveriesOf = (triggerId: string) =>
  e.db.db.select().from(triggerDeliveries).where(eq(triggerDeliveries.triggerId, triggerId));

/** Echoes what the event carried: `<what> from <trigger.name>`. */
const listener = (name: string) => ({
  schemaVersion: 1,
  name,
  inputs: { what: { type: "string", required: true } },
  steps: [
    { id: "got", type: "transform", config: { value: "{{ input.what }} from {{ trigger.name }}" } },
  ],
  output: "{{ steps.got.output.data }}",
});

/** One task step assigned to editors, then done. */
const taskFlow = (name: string) => ({
  schemaVersion: 1,
  name,
  steps: [
    {
      id: "review",
      type: "task",
      config: {
        instructions: "Review it",
        assignee: { roles: ["editor"] },
        outputSchema: { verdict: { type: "string", required: true } },
      },
    },
  ],
});

describe("system events for event triggers", () => {
  it("run.started starts a listener with the started run's data", async () => {
    const source = await e.workflow({
      schemaVersion: 1,
      name: "Watched",
      steps: [{ id: "n", type: "transform", config: { value: 1 } }],
    });
    const onStart = await e.workflow(listener("On start"));
    const trg = await eventTrigger(onStart, {
      event: "run.started",
      filter: { ref: "trigger.data.workflowId", eq: source },
      mapping: { what: "$.data.runId" },
    });
    const runId = await e.start(source);
    const run = await firstRunOf(onStart);
    expect(run.output).toBe(`${runId} from run.started`);
    expect(run.triggerPayload).toMatchObject({
      name: "run.started",
      data: { runId, workflowId: source, workflowName: "Watched", status: "running" },
      source: { runId, system: true },
    });
    expect((await deliveriesOf(trg)).map((d) => d.status)).toEqual(["accepted"]);
  });

  it("stops a workflow that starts itself on its own run.started at the chain limit", async () => {
    const loop = await e.workflow({
      schemaVersion: 1,
      name: "Self starter",
      steps: [{ id: "n", type: "transform", config: { value: 1 } }],
    });
    const trg = await eventTrigger(loop, {
      event: "run.started",
      filter: { ref: "trigger.data.workflowId", eq: loop },
    });
    await e.waitFor(await e.start(loop), ["completed"]);
    const refused = await e.h.until(
      async () => (await deliveriesOf(trg)).find((d) => d.status === "failed"),
      "the loop guard to refuse a run",
      60_000,
    );
    expect(refused.reason).toMatch(/loop guard/);
    await e.relay.drain();
    await e.relay.drain();
    // One run per allowed chain level (depth 0 … MAX) besides the manual one, then nothing.
    expect(await runsOf(loop)).toHaveLength(MAX_EVENT_CHAIN_DEPTH + 1);
  }, 90_000);

  it("task.completed and task.failed start listeners with the task's outcome", async () => {
    const flow = await e.workflow(taskFlow("Reviewed"));
    const onDone = await e.workflow(listener("On review done"));
    const onFail = await e.workflow(listener("On review failed"));
    await eventTrigger(onDone, {
      event: "task.completed",
      filter: { ref: "trigger.data.workflowId", eq: flow },
      mapping: { what: "$.data.output.verdict" },
    });
    await eventTrigger(onFail, {
      event: "task.failed",
      filter: { ref: "trigger.data.workflowId", eq: flow },
      mapping: { what: "$.data.reason" },
    });

    const first = await e.start(flow);
    const t1 = await e.pendingTask(first);
    await completeTask({
      ctx: e.ws.ctx("editor"),
      input: { taskId: t1.id, output: { verdict: "ship it" } },
      via: "ui",
    });
    const done = await firstRunOf(onDone);
    expect(done.output).toBe("ship it from task.completed");
    expect(done.triggerPayload).toMatchObject({
      data: { taskId: t1.id, runId: first, stepId: "review", status: "completed", via: "ui" },
      source: { runId: first, system: true },
    });

    const second = await e.start(flow);
    const t2 = await e.pendingTask(second);
    await failTask({
      ctx: e.ws.ctx("editor"),
      input: { taskId: t2.id, reason: "tests are red" },
      via: "api",
    });
    const failed = await firstRunOf(onFail);
    expect(failed.output).toBe("tests are red from task.failed");
    expect(failed.triggerPayload).toMatchObject({
      data: { taskId: t2.id, runId: second, status: "failed" },
    });
    // Each outcome started only its own listener.
    expect(await runsOf(onDone)).toHaveLength(1);
  });

  it("API callers cannot forge task events", async () => {
    for (const name of ["task.completed", "task.failed"])
      await expect(
        emitEvents({ ctx: e.ws.ctx("editor"), input: { name, data: {} } }),
      ).rejects.toThrow(/reserved name/);
  });
});
