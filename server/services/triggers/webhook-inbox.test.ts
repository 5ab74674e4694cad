/**
 * The webhook inbox (async accept as one insert) and its admitter, on a real database without an
 * executor (runs are created and admitted, not executed): 1,000 concurrent deliveries with
 * duplicates → exactly one run per delivery id; a run that cannot start marks its delivery
 * failed and visible; the cached trigger state never outlives a change to it.
 */
import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { runs, triggerDeliveries, triggers, webhookInbox } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { handleWebhook } from "@/server/http/hooks";
import { getRuntime } from "@/server/runtime";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { updateWorkflow } from "../workflows/update-workflow";
import { admitWebhookDeliveries } from "./admit-webhook-deliveries";
import { createTrigger } from "./create-trigger";
import { listTriggerDeliveries } from "./list-trigger-deliveries";
import { rotateWebhookSecret } from "./rotate-webhook-secret";
import { setTriggerEnabled } from "./set-trigger-enabled";
import { startTriggerRun, triggerContext } from "./start-trigger-run";
import { startWebhookAdmitter } from "./webhook-admitter";

let db: TestDb;
let ws: WorkspaceFixture;

beforeAll(async () => {
  db = await createTestDb("webhook-inbox");
  setProcessDb(db);
  ws = await createWorkspaceFixture(db.db, "Inbox");
});
afterAll(async () => {
  await db?.close();
});

async function workflow(name: string): Promise<string> {
  const wf = await createWorkflow({ ctx: ws.ctx("editor"), input: { name } });
  await saveDraft({
    ctx: ws.ctx("editor"),
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name,
        inputs: { order: { type: "string", required: true } },
        steps: [{ id: "echo", type: "transform", config: { value: "{{ input.order }}" } }],
      },
    },
  });
  await publishWorkflow({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } });
  return wf.id;
}

async function githubHook(workflowId: string) {
  const r = await createTrigger({
    ctx: ws.ctx("editor"),
    input: {
      kind: "webhook",
      workflowId,
      name: "GitHub",
      config: {
        verification: { preset: "github" },
        mapping: { order: "$.order.id" },
        rateLimit: { perMinute: 60_000, burst: 10_000 },
      },
    },
  });
  return { id: r.trigger.id, path: r.trigger.path!, secret: r.secret! };
}

function send(hook: { path: string; secret: string }, deliveryId: string, order: string) {
  const body = JSON.stringify({ order: { id: order } });
  const req = new Request(`http://localhost/api/hooks/${hook.path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`,
    },
    body,
  });
  return handleWebhook(req, { params: Promise.resolve({ path: [hook.path] }) });
}

const deps = () => ({ db: db.db, ...getRuntime() });
const runsOf = (triggerId: string) =>
  db.db.select().from(runs).where(eq(runs.triggerId, triggerId));
const inboxOf = (triggerId: string) =>
  db.db.select().from(webhookInbox).where(eq(webhookInbox.triggerId, triggerId));
const deliveriesOf = (triggerId: string) =>
  db.db.select().from(triggerDeliveries).where(eq(triggerDeliveries.triggerId, triggerId));

describe("webhook inbox", () => {
  it("1,000 concurrent deliveries with 10 % duplicates: 900 runs, each answered id exists once", async () => {
    const hook = await githubHook(await workflow("Burst"));
    const admitter = startWebhookAdmitter({ ...deps(), pollMs: 50 });
    try {
      // 900 distinct delivery ids; after every 9th a duplicate: half of them repeat the delivery
      // just sent (racing it in the same wave), half one from ~150 earlier (likely admitted).
      const sends: string[] = [];
      for (let i = 0; i < 900; i++) {
        sends.push(`d-${i}`);
        if (i % 9 === 8) sends.push(`d-${i % 18 === 8 ? i : Math.max(0, i - 150)}`);
      }
      expect(sends).toHaveLength(1000);
      const answers: { id: string; status: number; runId: string }[] = [];
      for (let at = 0; at < sends.length; at += 100) {
        const wave = sends.slice(at, at + 100);
        const got = await Promise.all(
          wave.map(async (id) => {
            const res = await send(hook, id, `o-${id.slice(2)}`);
            return { id, status: res.status, runId: (await res.json()).runId as string };
          }),
        );
        answers.push(...got);
      }
      await admitter.drain();

      expect(answers.filter((a) => a.status === 202)).toHaveLength(900);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
      const byDelivery = new Map<string, Set<string>>();
      for (const a of answers)
        byDelivery.set(a.id, (byDelivery.get(a.id) ?? new Set()).add(a.runId));
      expect(byDelivery.size).toBe(900);
      expect([...byDelivery.values()].every((ids) => ids.size === 1)).toBe(true);

      const created = await runsOf(hook.id);
      expect(created).toHaveLength(900);
      const answered = new Set(answers.map((a) => a.runId));
      expect(new Set(created.map((r) => r.id))).toEqual(answered);
      expect(new Set(created.map((r) => r.idempotencyKey)).size).toBe(900);
      const inbox = await inboxOf(hook.id);
      expect(inbox).toHaveLength(900);
      expect(inbox.every((r) => r.status === "admitted" && r.input === null)).toBe(true);
      const recorded = await deliveriesOf(hook.id);
      expect(recorded.filter((d) => d.status === "accepted")).toHaveLength(900);
      expect(recorded.filter((d) => d.status === "duplicate")).toHaveLength(100);
      // The trigger's "last fired" columns follow the batches.
      const [t] = await db.db.select().from(triggers).where(eq(triggers.id, hook.id));
      expect(answered.has(t!.lastRunId!)).toBe(true);
    } finally {
      await admitter.stop();
    }
  });

  it("a run that cannot start (workflow disabled after the accept) fails the delivery visibly; a retry starts it", async () => {
    const workflowId = await workflow("Fragile");
    const hook = await githubHook(workflowId);
    const accepted = await send(hook, "f-1", "F-1");
    expect(accepted.status).toBe(202);
    const { runId, deliveryId } = await accepted.json();
    // Before admission the deliveries list already shows it, with the run id it was answered.
    const pending = await listTriggerDeliveries({
      ctx: ws.ctx("viewer"),
      input: { triggerId: hook.id },
    });
    expect(pending.items[0]).toMatchObject({ id: deliveryId, status: "accepted", runId });

    await updateWorkflow({ ctx: ws.ctx("editor"), input: { workflowId, isEnabled: false } });
    expect(await admitWebhookDeliveries(deps())).toBe(1);
    const [row] = await inboxOf(hook.id);
    expect(row).toMatchObject({ status: "failed", error: expect.stringContaining("disabled") });
    const list = await listTriggerDeliveries({
      ctx: ws.ctx("viewer"),
      input: { triggerId: hook.id },
    });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      id: deliveryId,
      status: "failed",
      runId: null,
      reason: expect.stringMatching(/could not be started: .*disabled/),
    });
    expect(await runsOf(hook.id)).toHaveLength(0);

    // The sender retries the same delivery once the workflow is back: it is accepted anew.
    await updateWorkflow({ ctx: ws.ctx("editor"), input: { workflowId, isEnabled: true } });
    const retry = await send(hook, "f-1", "F-1");
    expect(retry.status).toBe(202);
    const second = await retry.json();
    expect(second.runId).not.toBe(runId);
    expect(await admitWebhookDeliveries(deps())).toBe(1);
    const [run] = await runsOf(hook.id);
    expect(run).toMatchObject({ id: second.runId, input: { order: "F-1" } });
  });

  it("a batch capped by time settles the oldest deliveries first and leaves the rest queued in order; a key that already has a run is answered with it", async () => {
    const hook = await githubHook(await workflow("Paced"));
    const answered: string[] = [];
    for (const id of ["p-1", "p-2", "p-3"]) {
      const res = await send(hook, id, id.toUpperCase());
      expect(res.status).toBe(202);
      answered.push((await res.json()).runId);
    }
    // p-3's key already has a run, started another way (as a sync-mode delivery would).
    const [third] = (await inboxOf(hook.id)).filter((r) => r.runId === answered[2]);
    const [trigger] = await db.db.select().from(triggers).where(eq(triggers.id, hook.id));
    const earlier = await db.db.transaction((tx) =>
      startTriggerRun(tx, triggerContext(deps(), trigger!.workspaceId, "webhook"), trigger!, {
        input: { order: "P-3" },
        payload: {},
        idempotencyKey: third!.deliveryKey,
      }),
    );

    // maxMs 0: each batch creates one run (at least one, or a slow batch would never progress).
    const settledOrder: string[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await admitWebhookDeliveries(deps(), { maxMs: 0 })).toBe(1);
      const inbox = await inboxOf(hook.id);
      const admitted = inbox.filter((r) => r.status === "admitted").map((r) => r.deliveryKey);
      expect(inbox.filter((r) => r.status === "accepted")).toHaveLength(2 - i);
      settledOrder.push(admitted.find((k) => !settledOrder.includes(k!))!);
    }
    expect(await admitWebhookDeliveries(deps(), { maxMs: 0 })).toBe(0);
    expect(settledOrder).toEqual(["p-1", "p-2", "p-3"].map((id) => expect.stringContaining(id)));

    const made = await runsOf(hook.id);
    expect(new Set(made.map((r) => r.id))).toEqual(
      new Set([answered[0], answered[1], earlier.run.id]),
    );
    const [dup] = (await inboxOf(hook.id)).filter((r) => r.deliveryKey === third!.deliveryKey);
    expect(dup).toMatchObject({ status: "admitted", runId: earlier.run.id });
    const recorded = await deliveriesOf(hook.id);
    expect(recorded.filter((d) => d.status === "duplicate")).toHaveLength(1);
  });

  it("cached trigger state never outlives a change: secret rotation, disable/enable, workflow disabled", async () => {
    const workflowId = await workflow("Cached");
    const hook = await githubHook(workflowId);
    expect((await send(hook, "c-1", "C-1")).status).toBe(202); // cached from here on

    const rotated = await rotateWebhookSecret({
      ctx: ws.ctx("editor"),
      input: { triggerId: hook.id, graceMinutes: 0 },
    });
    expect((await send(hook, "c-2", "C-2")).status).toBe(401);
    const keyed = { ...hook, secret: rotated.secret };
    expect((await send(keyed, "c-3", "C-3")).status).toBe(202);

    await setTriggerEnabled({
      ctx: ws.ctx("editor"),
      input: { triggerId: hook.id, enabled: false },
    });
    expect((await send(keyed, "c-4", "C-4")).status).toBe(404);
    await setTriggerEnabled({
      ctx: ws.ctx("editor"),
      input: { triggerId: hook.id, enabled: true },
    });
    expect((await send(keyed, "c-5", "C-5")).status).toBe(202);

    // A disabled workflow is refused in the request, as before the inbox (nothing accepted).
    await updateWorkflow({ ctx: ws.ctx("editor"), input: { workflowId, isEnabled: false } });
    const refused = await send(keyed, "c-6", "C-6");
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toMatch(/disabled/);

    // No admitter runs in this test: the accepted deliveries wait in the inbox.
    const inbox = await db.db
      .select({ key: webhookInbox.deliveryKey })
      .from(webhookInbox)
      .where(and(eq(webhookInbox.triggerId, hook.id), eq(webhookInbox.status, "accepted")));
    expect(inbox.map((r) => r.key).sort()).toEqual(["c-1", "c-3", "c-5"]);
  });
});
