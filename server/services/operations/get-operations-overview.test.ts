/**
 * Issue 30: the operations page's numbers from seeded rows (runs with known durations, gates,
 * webhook deliveries), on PGlite and Postgres: buckets, failure rates, p50/p95 by percentile_cont,
 * the queue, the oldest gate, webhook rejects; another workspace's rows never count.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvals, runs, tasks, triggerDeliveries } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId } from "@/lib/ids";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { createTrigger } from "../triggers/create-trigger";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { getOperationsOverview } from "./get-operations-overview";

const NOW = new Date("2026-03-10T12:30:00Z");
const at = (iso: string) => new Date(iso);
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

let t: TestDb;
let fx: WorkspaceFixture;
let other: WorkspaceFixture;
let wfA: string;
let wfB: string;
let triggerId: string;

async function published(f: WorkspaceFixture, name: string) {
  const wf = await createWorkflow({ ctx: f.ctx("owner"), input: { name } });
  await saveDraft({
    ctx: f.ctx("owner"),
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name,
        steps: [{ id: "s", type: "transform", config: { value: 1 } }],
      },
    },
  });
  await publishWorkflow({ ctx: f.ctx("owner"), input: { workflowId: wf.id } });
  return wf.id;
}

async function run(
  f: WorkspaceFixture,
  workflowId: string,
  status: (typeof runs.$inferInsert)["status"],
  createdAt: Date,
  durationMs?: number,
  extra: Partial<typeof runs.$inferInsert> = {},
) {
  const id = newId("run");
  await t.db.insert(runs).values({
    id,
    workspaceId: f.workspaceId,
    workflowId,
    version: "1.0.0",
    hash: "sha256:x",
    status,
    triggerType: "manual",
    initiatorType: "user",
    rootRunId: id,
    createdAt,
    queuedAt: createdAt,
    startedAt: durationMs === undefined ? null : createdAt,
    finishedAt: durationMs === undefined ? null : plus(createdAt, durationMs),
    ...extra,
  });
  return id;
}

beforeAll(async () => {
  t = await createTestDb("operations");
  fx = await createWorkspaceFixture(t.db, "Ops");
  other = await createWorkspaceFixture(t.db, "Other");
  wfA = await published(fx, "Alpha");
  wfB = await published(fx, "Beta");
  const wfOther = await published(other, "Elsewhere");

  // Alpha: 5 finished runs in the hour 12:00–13:00 (bucket 23), durations 1, 2, 3, 4 s and a
  // failed 10 s → p50 3000, p95 4000 + 0.8 × 6000 = 8800.
  for (const [i, ms] of [1000, 2000, 3000, 4000].entries())
    await run(fx, wfA, "completed", at(`2026-03-10T12:0${i}:00Z`), ms);
  await run(fx, wfA, "failed", at("2026-03-10T12:05:00Z"), 10_000);
  // Beta: a timed-out 5 s run at 02:15 (bucket 13) and a queued one (no duration).
  await run(fx, wfB, "timed_out", at("2026-03-10T02:15:00Z"), 5_000);
  await run(fx, wfB, "queued", at("2026-03-10T11:00:00Z"));
  const waiting = await run(fx, wfB, "waiting", at("2026-03-10T10:00:00Z"), undefined, {
    startedAt: at("2026-03-10T10:00:01Z"),
  });
  // Outside the 24 h range (inside 7 days), an editor test run, and another workspace's runs.
  await run(fx, wfA, "failed", at("2026-03-08T09:00:00Z"), 60_000);
  await run(fx, wfA, "failed", at("2026-03-10T12:10:00Z"), 1, { isTest: true });
  for (let i = 0; i < 3; i++) await run(other, wfOther, "failed", at("2026-03-10T12:00:00Z"), 1);

  // Gates: an approval opened 09:00 and a task opened 08:00 (the oldest) on the waiting run.
  await t.db.insert(approvals).values({
    id: newId("apr"),
    workspaceId: fx.workspaceId,
    runId: waiting,
    workflowId: wfB,
    stepId: "approve",
    stepPath: "approve",
    attempt: 1,
    status: "pending",
    prompt: "ok?",
    shownHash: "h",
    expiresAt: at("2026-03-20T00:00:00Z"),
    createdAt: at("2026-03-10T09:00:00Z"),
  });
  await t.db.insert(tasks).values({
    id: "tsk_oldest",
    workspaceId: fx.workspaceId,
    runId: waiting,
    workflowId: wfB,
    stepId: "review",
    stepPath: "review",
    attempt: 1,
    status: "pending",
    instructions: "look",
    assignee: {},
    expiresAt: at("2026-03-20T00:00:00Z"),
    createdAt: at("2026-03-10T08:00:00Z"),
  });

  // Webhooks: 2 accepted, 1 duplicate, 3 rejected (2 bad signature) and 1 too large.
  const hook = await createTrigger({
    ctx: fx.ctx("owner"),
    input: { kind: "webhook", workflowId: wfA, name: "Hook", config: {} },
  });
  triggerId = hook.trigger.id;
  const deliveries: [string, string | null, string][] = [
    ["accepted", null, "2026-03-10T12:00:00Z"],
    ["accepted", null, "2026-03-10T11:00:00Z"],
    ["duplicate", null, "2026-03-10T11:00:00Z"],
    ["rejected", "bad signature", "2026-03-10T12:01:00Z"],
    ["rejected", "bad signature", "2026-03-10T12:02:00Z"],
    ["rejected", "stale timestamp", "2026-03-10T03:00:00Z"],
    ["too_large", null, "2026-03-10T12:03:00Z"],
    ["rejected", "bad signature", "2026-03-01T00:00:00Z"], // outside both ranges
  ];
  for (const [status, reason, when] of deliveries) {
    await t.db.insert(triggerDeliveries).values({
      id: newId("dlv"),
      workspaceId: fx.workspaceId,
      triggerId,
      status: status as "accepted",
      reason,
      receivedAt: at(when),
    });
  }
});
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ ...fx.ctx("admin"), now: () => NOW });

describe("getOperationsOverview", () => {
  it("last 24 hours: hourly buckets, per-workflow rates and percentiles, queue, gates, webhooks", async () => {
    const o = await getOperationsOverview({ ctx: admin(), input: { range: "24h" } });
    expect(o.from).toBe("2026-03-09T13:00:00.000Z");
    expect(o.to).toBe("2026-03-10T13:00:00.000Z");
    expect(o.timeline).toHaveLength(24);
    expect(o.timeline[23]).toEqual({
      at: "2026-03-10T12:00:00.000Z",
      runs: 5,
      failed: 1,
      webhookRejects: 3,
    });
    expect(o.timeline[13]).toEqual({
      at: "2026-03-10T02:00:00.000Z",
      runs: 1,
      failed: 1,
      webhookRejects: 0,
    });
    expect(o.timeline[14]).toMatchObject({ runs: 0, webhookRejects: 1 }); // stale timestamp, 03:00
    expect(o.timeline[22]).toMatchObject({ runs: 1, failed: 0 }); // the queued run at 11:00
    expect(o.totals).toEqual({ runs: 8, failed: 2, failureRate: 0.25 });
    expect(o.workflows).toEqual([
      {
        workflowId: wfA,
        name: "Alpha",
        runs: 5,
        failed: 1,
        failureRate: 0.2,
        p50Ms: 3000,
        p95Ms: 8800,
      },
      {
        workflowId: wfB,
        name: "Beta",
        runs: 3,
        failed: 1,
        failureRate: 1 / 3,
        p50Ms: 5000,
        p95Ms: 5000,
      },
    ]);
    expect(o.queue).toEqual({
      queued: 1,
      oldestQueuedAt: "2026-03-10T11:00:00.000Z",
      running: 0,
      waiting: 1,
    });
    expect(o.gates.waiting).toBe(2);
    expect(o.gates.oldest).toMatchObject({
      kind: "task",
      id: "tsk_oldest",
      stepId: "review",
      workflowName: "Beta",
      since: "2026-03-10T08:00:00.000Z",
    });
    expect(o.webhooks).toEqual({
      accepted: 2,
      duplicates: 1,
      rejected: 4,
      topReasons: [
        { reason: "bad signature", count: 2 },
        { reason: "stale timestamp", count: 1 },
        { reason: "too_large", count: 1 },
      ],
    });
  });

  it("last 7 days takes the older run in, hourly over 168 hours", async () => {
    const o = await getOperationsOverview({ ctx: admin(), input: { range: "7d" } });
    expect(o.timeline).toHaveLength(168);
    expect(o.totals).toEqual({ runs: 9, failed: 3, failureRate: 3 / 9 });
    expect(o.workflows[0]).toMatchObject({ name: "Alpha", runs: 6, failed: 2, p50Ms: 3500 });
    expect(o.webhooks.rejected).toBe(4);
  });

  it("defaults to 24 hours, refuses an unknown range, and is for admins only", async () => {
    expect((await getOperationsOverview({ ctx: admin() })).range).toBe("24h");
    await expect(
      getOperationsOverview({ ctx: admin(), input: { range: "1y" } }),
    ).rejects.toMatchObject({ code: "VALIDATION" });
    for (const role of ["viewer", "approver", "editor"] as const) {
      await expect(
        getOperationsOverview({ ctx: { ...fx.ctx(role), now: () => NOW } }),
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    const owner = await getOperationsOverview({ ctx: { ...fx.ctx("owner"), now: () => NOW } });
    expect(owner.totals.runs).toBe(8);
  });

  it("sees only its own workspace", async () => {
    const o = await getOperationsOverview({ ctx: { ...other.ctx("admin"), now: () => NOW } });
    expect(o.totals).toEqual({ runs: 3, failed: 3, failureRate: 1 });
    expect(o.gates).toEqual({ waiting: 0, oldest: null });
    expect(o.webhooks).toEqual({ accepted: 0, duplicates: 0, rejected: 0, topReasons: [] });
    expect(o.queue.queued).toBe(0);
  });
});
