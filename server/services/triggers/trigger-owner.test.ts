/**
 * Runs started by triggers have an accountable user (issue #25.18): the trigger's owner
 * (`triggers.created_by`). Webhook, schedule and event runs carry it, so the per-user admission
 * limit holds them back when the owner is at it; an owner who left the workspace or was deleted
 * makes the trigger refuse to start runs, with the reason recorded, until an editor takes it over.
 * Real database (PGlite, and Postgres in the postgres project), no executor: runs are created and
 * admitted, not executed.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  runs,
  scheduleTicks,
  triggerDeliveries,
  triggers,
  users,
  workspaces,
} from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId } from "@/lib/ids";
import { createLogger } from "@/lib/log";
import {
  createWorkspaceFixture,
  testConfig,
  testKeys,
  type WorkspaceFixture,
} from "../../testing/harness";
import { removeMember } from "../members/remove-member";
import { startRun } from "../runs/start-run";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { admitWebhookDeliveries } from "./admit-webhook-deliveries";
import { createTrigger } from "./create-trigger";
import { evaluateSchedules } from "./evaluate-schedules";
import { fireEventTriggers } from "./fire-event-triggers";
import { getTrigger } from "./get-trigger";
import { listTriggers } from "./list-triggers";
import { receiveWebhook } from "./receive-webhook";
import { triggerContext } from "./start-trigger-run";
import { takeOverTrigger } from "./take-over-trigger";

let t: TestDb;
const log = createLogger({ test: "trigger-owner" });
const deps = () => ({ db: t.db, keys: testKeys, config: testConfig, log });

beforeAll(async () => {
  t = await createTestDb("trigger-owner");
});
afterAll(async () => {
  await t?.close();
});
// Every evaluation sees every enabled schedule: each test leaves none behind.
afterEach(async () => {
  await t.db.update(triggers).set({ enabled: false }).where(eq(triggers.kind, "schedule"));
});

async function workflow(fx: WorkspaceFixture, overflow: "queue" | "skip" = "queue") {
  const wf = await createWorkflow({
    ctx: fx.ctx("editor"),
    input: { name: `Owned ${newId("n")}` },
  });
  await saveDraft({
    ctx: fx.ctx("editor"),
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name: "Owned",
        constraints: { overflow },
        steps: [{ id: "a", type: "transform", config: { value: 1 } }],
      },
    },
  });
  await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: wf.id } });
  return wf.id;
}

/** A workspace whose extra editor `owner` creates the triggers (and can be removed). */
async function ownedWorkspace(label: string) {
  const fx = await createWorkspaceFixture(t.db, label);
  const owner = await fx.addMember("editor");
  const ownerCtx = () =>
    ({ ...fx.ctx("editor"), actor: { type: "user", userId: owner } }) as ReturnType<
      WorkspaceFixture["ctx"]
    >;
  return { fx, owner, ownerCtx };
}

async function webhookOf(ctx: ReturnType<WorkspaceFixture["ctx"]>, workflowId: string) {
  const r = await createTrigger({
    ctx,
    input: {
      kind: "webhook",
      workflowId,
      name: "Hook",
      config: { verification: { preset: "none" }, idempotency: "none" },
    },
  });
  return r.trigger;
}

async function scheduleOf(ctx: ReturnType<WorkspaceFixture["ctx"]>, workflowId: string) {
  const r = await createTrigger({
    ctx,
    input: {
      kind: "schedule",
      workflowId,
      name: "Every 5 minutes",
      config: { cron: "*/5 * * * *", timezone: "UTC", overlap: "allow" },
    },
  });
  // The scheduler plans from an edit's time; the test clock runs in 2026.
  await t.db
    .update(triggers)
    .set({ updatedAt: new Date("2026-01-01T00:00:00Z") })
    .where(eq(triggers.id, r.trigger.id));
  return r.trigger;
}

function deliver(path: string) {
  return receiveWebhook(deps(), {
    method: "POST",
    path,
    headers: new Headers({ "content-type": "application/json" }),
    query: new URLSearchParams(),
    readBody: async () => Buffer.from(JSON.stringify({ hello: "world" })),
  });
}

/** Fires the schedule's tick at `minute` (cursor set a minute before). */
async function tick(minute: string) {
  await evaluateSchedules({ ...deps(), now: new Date(Date.parse(minute) - 59_000) });
  return evaluateSchedules({ ...deps(), now: new Date(Date.parse(minute) + 1_000) });
}

const runsOf = (triggerId: string) =>
  t.db.select().from(runs).where(eq(runs.triggerId, triggerId)).orderBy(runs.createdAt);
const deliveriesOf = (triggerId: string) =>
  t.db
    .select()
    .from(triggerDeliveries)
    .where(eq(triggerDeliveries.triggerId, triggerId))
    .orderBy(triggerDeliveries.receivedAt);
const ticksOf = (triggerId: string) =>
  t.db.select().from(scheduleTicks).where(eq(scheduleTicks.triggerId, triggerId));

describe("runs started by triggers count against the trigger's owner", () => {
  it("webhook, schedule and event runs carry the owner as their accountable user", async () => {
    const { fx, owner, ownerCtx } = await ownedWorkspace("Carry");
    const wf = await workflow(fx);

    const hook = await webhookOf(ownerCtx(), wf);
    const answer = await deliver(hook.path!);
    expect(answer.status).toBe(202);
    await admitWebhookDeliveries(deps());
    const [hookRun] = await runsOf(hook.id);
    expect(hookRun).toMatchObject({
      triggerType: "webhook",
      initiatorType: "webhook",
      accountableUserId: owner,
      status: "running",
    });

    const sched = await scheduleOf(ownerCtx(), wf);
    expect((await tick("2026-06-01T10:05:00Z")).fired).toBe(1);
    const [schedRun] = await runsOf(sched.id);
    expect(schedRun).toMatchObject({
      triggerType: "schedule",
      initiatorType: "schedule",
      accountableUserId: owner,
    });

    const ev = await createTrigger({
      ctx: ownerCtx(),
      input: { kind: "event", workflowId: wf, name: "On ping", config: { event: "ping" } },
    });
    const fired = await fireEventTriggers(
      t.db,
      (id) => triggerContext(deps(), id, "events"),
      fx.workspaceId,
      { id: newId("evt"), name: "ping", data: {} },
    );
    expect(fired.failed).toEqual([]);
    const [eventRun] = await runsOf(ev.trigger.id);
    expect(eventRun).toMatchObject({ triggerType: "event", accountableUserId: owner });

    // "Fire now" counts against the person who pressed it, as before.
    const shown = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: hook.id } });
    expect(shown.owner).toMatchObject({ userId: owner, status: "member", problem: null });
  });

  it("the per-user limit holds back a trigger's run when its owner is at it, not another member's", async () => {
    const { fx, owner, ownerCtx } = await ownedWorkspace("Limit");
    await t.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 1 } })
      .where(eq(workspaces.id, fx.workspaceId));
    const queued = await workflow(fx, "queue");
    const skipped = await workflow(fx, "skip");
    const busy = await workflow(fx);
    // The owner's one allowed active run (admitted at once: no executor ends it).
    const mine = await startRun({ ctx: ownerCtx(), input: { workflowId: busy } });
    expect(mine.status).toBe("running");
    // Another member at their own limit changes nothing for the owner's triggers' count.
    const other = await startRun({ ctx: fx.ctx("editor"), input: { workflowId: busy } });
    expect(other.status).toBe("running");

    const hook = await webhookOf(ownerCtx(), queued);
    expect((await deliver(hook.path!)).status).toBe(202);
    await admitWebhookDeliveries(deps());
    const [hookRun] = await runsOf(hook.id);
    expect(hookRun).toMatchObject({ accountableUserId: owner, status: "queued" });

    // Overflow "skip": the schedule's run is refused outright, saying why.
    const sched = await scheduleOf(ownerCtx(), skipped);
    await tick("2026-06-02T10:05:00Z");
    const [schedRun] = await runsOf(sched.id);
    expect(schedRun).toMatchObject({
      accountableUserId: owner,
      status: "cancelled",
      error: expect.objectContaining({ code: "overflow_skipped" }),
    });

    // A trigger owned by someone with a free slot starts at once in the same workspace.
    const free = await fx.addMember("editor");
    const freeHook = await webhookOf(
      { ...fx.ctx("editor"), actor: { type: "user", userId: free } },
      queued,
    );
    expect((await deliver(freeHook.path!)).status).toBe(202);
    await admitWebhookDeliveries(deps());
    expect((await runsOf(freeHook.id))[0]).toMatchObject({
      accountableUserId: free,
      status: "running",
    });
  });

  it("an owner removed from the workspace: runs are refused with the reason until an editor takes over", async () => {
    const { fx, owner, ownerCtx } = await ownedWorkspace("Removed");
    const wf = await workflow(fx);
    const hook = await webhookOf(ownerCtx(), wf);
    const sched = await scheduleOf(ownerCtx(), wf);
    const ev = await createTrigger({
      ctx: ownerCtx(),
      input: { kind: "event", workflowId: wf, name: "On ping", config: { event: "ping" } },
    });
    // Warm the webhook cache while the owner is a member: the stale entry must not accept.
    expect((await deliver(hook.path!)).status).toBe(202);
    await admitWebhookDeliveries(deps());

    await removeMember({ ctx: fx.ctx("admin"), input: { userId: owner } });

    const refused = await deliver(hook.path!);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain("no longer a member of this workspace");
    const last = (await deliveriesOf(hook.id)).at(-1)!;
    expect(last).toMatchObject({ status: "failed", httpStatus: 409 });
    expect(last.reason).toMatch(/has no accountable owner: its owner is no longer a member/);
    expect(await runsOf(hook.id)).toHaveLength(1);

    expect((await tick("2026-06-03T10:05:00Z")).failed).toBe(1);
    const [failedTick] = await ticksOf(sched.id);
    expect(failedTick).toMatchObject({ status: "failed", runId: null });
    expect(failedTick!.reason).toMatch(/takes it over/);

    const fired = await fireEventTriggers(
      t.db,
      (id) => triggerContext(deps(), id, "events"),
      fx.workspaceId,
      { id: newId("evt"), name: "ping", data: {} },
    );
    expect(fired.started).toEqual([]);
    expect(fired.failed[0]!.reason).toMatch(/no longer a member/);

    // The trigger pages say so.
    const shown = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: hook.id } });
    expect(shown.owner).toMatchObject({ userId: owner, status: "removed" });
    expect(shown.owner.problem).toMatch(/starts no runs until an editor takes it over/);
    const listed = await listTriggers({ ctx: fx.ctx("viewer"), input: { workflowId: wf } });
    expect(listed.map((l) => l.owner.status)).toEqual(["removed", "removed", "removed"]);

    // Viewers cannot take over; an editor can, and runs count against them from then on.
    await expect(
      takeOverTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: hook.id } }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    const taken = await takeOverTrigger({ ctx: fx.ctx("editor"), input: { triggerId: hook.id } });
    expect(taken.owner).toMatchObject({ userId: fx.members.editor, status: "member" });
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "trigger.taken_over"), eq(auditEvents.targetId, hook.id)));
    expect(audit?.data).toMatchObject({ previousOwner: owner, owner: fx.members.editor });
    expect((await deliver(hook.path!)).status).toBe(202);
    await admitWebhookDeliveries(deps());
    expect((await runsOf(hook.id)).at(-1)).toMatchObject({
      accountableUserId: fx.members.editor,
    });
    await takeOverTrigger({ ctx: fx.ctx("editor"), input: { triggerId: sched.id } });
    await tick("2026-06-03T10:10:00Z");
    expect((await runsOf(sched.id))[0]).toMatchObject({ accountableUserId: fx.members.editor });
    // Another workspace's editor finds no such trigger.
    const stranger = await createWorkspaceFixture(t.db, "Stranger");
    await expect(
      takeOverTrigger({ ctx: stranger.ctx("editor"), input: { triggerId: ev.trigger.id } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("an owner whose account was deleted: shown as deleted, and a queued inbox delivery fails with the reason", async () => {
    const { fx, owner, ownerCtx } = await ownedWorkspace("Deleted");
    const wf = await workflow(fx);
    const hook = await webhookOf(ownerCtx(), wf);
    // Accepted into the inbox while the owner existed; the account goes before the admitter runs.
    expect((await deliver(hook.path!)).status).toBe(202);
    await t.db.delete(users).where(eq(users.id, owner));
    await admitWebhookDeliveries(deps());
    expect(await runsOf(hook.id)).toEqual([]);
    const [failed] = await deliveriesOf(hook.id);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.reason).toMatch(/the account of the person who owned it was deleted/);
    const shown = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: hook.id } });
    expect(shown.owner).toMatchObject({ userId: null, status: "deleted" });
    expect((await deliver(hook.path!)).status).toBe(409);
  });
});
