/**
 * Event triggers end to end (SPEC §7): events from the API, from `emit_event` steps and from the
 * system (`run.completed`) go through the outbox and start the runs of matching triggers, with
 * field filters, input mapping, idempotency by event id and a guard against event loops.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, triggerDeliveries, triggers } from "@/db/schema";
import { newId } from "@/lib/ids";
import { MAX_EVENT_CHAIN_DEPTH } from "@/lib/triggers/events";
import { emitEvents } from "@/server/services/events/emit-events";
import { updateWorkflow } from "@/server/services/workflows/update-workflow";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("events");
});
afterAll(async () => {
  await e?.close();
});

async function eventTrigger(workflowId: string, config: Record<string, unknown>) {
  const id = newId("trg");
  await e.db.db.insert(triggers).values({
    id,
    workspaceId: e.ws.workspaceId,
    workflowId,
    kind: "event",
    name: `on ${String(config.event)}`,
    eventName: String(config.event),
    config: { mapping: {}, input: {}, ...config },
    createdBy: e.ws.members.editor,
  });
  return id;
}
const runsOf = (workflowId: string) =>
  e.db.db
    .select()
    .from(runs)
    .where(and(eq(runs.workflowId, workflowId), eq(runs.triggerType, "event")));
/** The first event-started run of the workflow, once it has finished. */
async function firstRunFinished(workflowId: string) {
  const started = await e.h.until(async () => {
    const r = await runsOf(workflowId);
    return r.length ? r : undefined;
  }, "a run of the event trigger");
  return e.waitFor(started[0]!.id, ["completed", "failed"]);
}
const deliveriesOf = (triggerId: string) =>
  e.db.db.select().from(triggerDeliveries).where(eq(triggerDeliveries.triggerId, triggerId));
const settle = async () => {
  await e.relay.drain();
  await e.relay.drain();
};

const echo = (name: string) => ({
  schemaVersion: 1,
  name,
  inputs: { order: { type: "string", required: true } },
  steps: [
    { id: "got", type: "transform", config: { value: "{{ input.order }} via {{ trigger.name }}" } },
  ],
  output: "{{ steps.got.output.data }}",
});

describe("event triggers", () => {
  it("an API event starts the matching trigger's run with mapped input; filters and ids are honoured", async () => {
    const wf = await e.workflow(echo("Big orders"));
    const trg = await eventTrigger(wf, {
      event: "order.*",
      filter: { ref: "trigger.data.total", gte: 100 },
      mapping: { order: "$.data.id" },
    });
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: [
        { name: "order.paid", data: { id: "small", total: 5 } },
        { name: "order.paid", data: { id: "big", total: 500 }, id: "evt-big" },
        { name: "invoice.paid", data: { id: "other", total: 900 } },
      ],
    });
    // The same event id again (a client retry) starts nothing new.
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: { name: "order.paid", data: { id: "big", total: 500 }, id: "evt-big" },
    });
    await settle();
    const run = await firstRunFinished(wf);
    expect(run.output).toBe("big via order.paid");
    expect(run.triggerId).toBe(trg);
    await settle();
    expect(await runsOf(wf)).toHaveLength(1);
    const d = await deliveriesOf(trg);
    expect(d.map((x) => [x.status, x.deliveryKey, x.runId])).toEqual([
      ["accepted", "evt-big", run.id],
    ]);
  });

  it("an event without an optional mapped field starts the run with the input's default", async () => {
    const wf = await e.workflow({
      ...echo("Priority orders"),
      inputs: {
        order: { type: "string", required: true },
        priority: { type: "string", default: "normal" },
      },
      output: "{{ input.priority }}",
    });
    await eventTrigger(wf, {
      event: "order.flagged",
      mapping: { order: "$.data.id", priority: "$.data.priority" },
    });
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: { name: "order.flagged", data: { id: "o-9" } },
    });
    await settle();
    const run = await firstRunFinished(wf);
    expect(run).toMatchObject({
      status: "completed",
      input: { order: "o-9", priority: "normal" },
      output: "normal",
    });
  });

  it("refuses to let API callers forge system events", async () => {
    await expect(
      emitEvents({ ctx: e.ws.ctx("editor"), input: { name: "run.completed", data: {} } }),
    ).rejects.toThrow(/reserved name/);
    await expect(emitEvents({ ctx: e.ws.ctx("viewer"), input: { name: "x.y" } })).rejects.toThrow(
      /editor/,
    );
  });

  it("emit_event steps and run.completed system events start other workflows", async () => {
    const source = await e.workflow({
      schemaVersion: 1,
      name: "Source",
      steps: [
        {
          id: "tell",
          type: "emit_event",
          config: { event: "shipment.ready", data: { id: "s-1" } },
        },
      ],
    });
    const onEmit = await e.workflow(echo("On shipment"));
    const onDone = await e.workflow({
      schemaVersion: 1,
      name: "After source",
      inputs: { finished: { type: "string", required: true } },
      steps: [{ id: "note", type: "transform", config: { value: "{{ input.finished }}" } }],
      output: "{{ steps.note.output.data }}",
    });
    await eventTrigger(onEmit, { event: "shipment.ready", mapping: { order: "$.data.id" } });
    await eventTrigger(onDone, {
      event: "run.completed",
      filter: { ref: "trigger.data.workflowId", eq: source },
      mapping: { finished: "$.data.runId" },
    });
    const runId = await e.start(source);
    await e.waitFor(runId, ["completed"]);
    const emitted = await e.h.until(async () => (await runsOf(onEmit))[0], "the emit_event run");
    expect((await e.waitFor(emitted.id, ["completed", "failed"])).output).toBe(
      "s-1 via shipment.ready",
    );
    const after = await e.h.until(async () => (await runsOf(onDone))[0], "the run.completed run");
    expect((await e.waitFor(after.id, ["completed", "failed"])).output).toBe(runId);
  });

  it("stops event loops: a workflow that restarts itself on run.completed ends after the chain limit", async () => {
    const loop = await e.workflow({
      schemaVersion: 1,
      name: "Ouroboros",
      steps: [{ id: "n", type: "transform", config: { value: 1 } }],
    });
    const trg = await eventTrigger(loop, {
      event: "run.completed",
      filter: { ref: "trigger.data.workflowId", eq: loop },
    });
    await e.waitFor(await e.start(loop), ["completed"]);
    const refused = await e.h.until(
      async () => (await deliveriesOf(trg)).find((d) => d.status === "failed"),
      "the loop guard to refuse a run",
      60_000,
    );
    expect(refused.reason).toMatch(/loop guard/);
    await settle();
    // The manual run plus one run per allowed chain level (depth 0 … MAX).
    expect(await runsOf(loop)).toHaveLength(MAX_EVENT_CHAIN_DEPTH + 1);
  }, 90_000);

  it("records why a matching trigger could not start a run (disabled workflow)", async () => {
    const wf = await e.workflow(echo("Disabled listener"));
    const trg = await eventTrigger(wf, {
      event: "order.refunded",
      mapping: { order: "$.data.id" },
    });
    await updateWorkflow({ ctx: e.ws.ctx("editor"), input: { workflowId: wf, isEnabled: false } });
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: { name: "order.refunded", data: { id: "r-1" } },
    });
    const failed = await e.h.until(async () => (await deliveriesOf(trg))[0], "a failed delivery");
    expect(failed.status).toBe("failed");
    expect(failed.reason).toMatch(/disabled/);
    expect(await runsOf(wf)).toHaveLength(0);
  });
});
