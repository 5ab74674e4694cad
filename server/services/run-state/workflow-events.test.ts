/**
 * Workflow events past the relay (issue 28): with the executor embedded and no enabled event
 * trigger in the workspace, a workflow event goes straight into the executor with the change
 * that caused it (no outbox row) and still resumes a matching `wait_for_event`; with an event
 * trigger (or a relay hook that acts on the event), it goes through the outbox as before.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox, triggers } from "@/db/schema";
import { newId } from "@/lib/ids";
import { relayNeededFor } from "@/server/services/outbox/deliver";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("workflow-events");
});
afterAll(async () => {
  await e?.close();
});

const eventRows = () =>
  e.db.db
    .select({ name: outbox.name })
    .from(outbox)
    .where(and(eq(outbox.workspaceId, e.ws.workspaceId), eq(outbox.topic, "event")));

async function waiterAndEmitter(event: string) {
  const waiter = await e.workflow({
    schemaVersion: 1,
    name: `Waiter ${event}`,
    steps: [{ id: "w", type: "wait_for_event", config: { event, timeout: "1h" } }],
    output: "{{ steps.w.output.data.data.n }}",
  });
  const emitter = await e.workflow({
    schemaVersion: 1,
    name: `Emitter ${event}`,
    steps: [{ id: "say", type: "emit_event", config: { event, data: { n: 7 } } }],
  });
  return { waiter, emitter };
}

async function emitAndResume(event: string) {
  const { waiter, emitter } = await waiterAndEmitter(event);
  const waitRun = await e.start(waiter);
  await e.waitFor(waitRun, ["waiting"]);
  const emitRun = await e.start(emitter);
  expect((await e.waitFor(emitRun, ["completed", "failed"])).status).toBe("completed");
  const done = await e.waitFor(waitRun, ["completed", "failed"]);
  expect(done.status).toBe("completed");
  expect(done.output).toBe(7);
}

describe("workflow events with the embedded executor", () => {
  it("skip the outbox when nothing but waits listens, and still resume a wait", async () => {
    expect(relayNeededFor("deploy.done")).toBe("if-triggers");
    await emitAndResume("deploy.done");
    // Neither the emitted event nor the runs' run.started / run.completed went through the relay.
    expect(await eventRows()).toEqual([]);
  });

  it("go through the outbox once the workspace has an enabled event trigger", async () => {
    const { emitter } = await waiterAndEmitter("unused.event");
    await e.db.db.insert(triggers).values({
      id: newId("trg"),
      workspaceId: e.ws.workspaceId,
      workflowId: emitter,
      kind: "event",
      name: "on something else",
      eventName: "something.else",
      config: { event: "something.else", mapping: {}, input: {} },
      createdBy: e.ws.members.editor,
    });
    await emitAndResume("release.done");
    const names = (await eventRows()).map((r) => r.name);
    expect(names).toContain("release.done");
    expect(names).toContain("run.completed");
  });

  it("always relay what a hook acts on (alerts on run.failed)", () => {
    expect(relayNeededFor("run.failed")).toBe("always");
  });
});
