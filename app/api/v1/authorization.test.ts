/**
 * Authorization matrix for the public HTTP API: every /api/v1 route × (no token, a garbage token,
 * a token of each role, a revoked token, a token of another workspace) → allowed or refused.
 * Route files are discovered from disk (server/testing/api-routes.ts), so a new route or method
 * without a row here fails the test. Public routes (minRole null) answer without a token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { ROLES, hasRole, type Role } from "@/lib/schemas/roles";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { revokeApiToken } from "@/server/services/api-tokens/revoke-api-token";
import { eq } from "drizzle-orm";
import { runs } from "@/db/schema";
import { getRuntime } from "@/server/runtime";
import { openApproval } from "@/server/services/run-state/approval-gate";
import { openTestTask } from "@/server/testing/tasks";
import { startRun } from "@/server/services/runs/start-run";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { makeCtx } from "@/server/testing/harness";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { getProposal } from "@/server/services/proposals/get-proposal";
import { reviewProposal } from "@/server/services/proposals/review-proposal";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { listVersions } from "@/server/services/workflows/list-versions";
import { discoverApiRoutes, loadRouteModule } from "@/server/http/testing";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;
interface Prepared {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}
interface RouteCase {
  /** null: a public route (no token needed). */
  minRole: Role | null;
  /** Params and body for a call that succeeds for an allowed caller in `fx`. */
  prepare?: (fx: WorkspaceFixture) => Promise<Prepared>;
  /** Params naming another workspace's resource: must answer 404, never 2xx (nor a 403 that leaks). */
  foreign?: (other: WorkspaceFixture) => Promise<Prepared>;
  expectOk?: (res: Response, fx: WorkspaceFixture) => Promise<void>;
}

async function workflowIn(fx: WorkspaceFixture) {
  return (await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `W ${Math.random()}` } })).id;
}
async function runIn(fx: WorkspaceFixture) {
  return (await startRun({ ctx: fx.ctx("owner"), input: { workflowId: await workflowIn(fx) } }))
    .runId;
}
/** A run with a pending approval anyone of approver rank may decide, and its resume token. */
async function gateIn(fx: WorkspaceFixture) {
  const runId = await runIn(fx);
  const [run] = await t.db.select().from(runs).where(eq(runs.id, runId));
  const keys = getRuntime().keys;
  const opened = await openApproval(t.db, keys, {
    key: {
      runId,
      workspaceId: fx.workspaceId,
      stepId: "gate",
      path: "gate",
      stepType: "approval",
      attempt: 1,
    },
    workflowId: run!.workflowId!,
    hash: run!.hash,
    prompt: "Ship?",
    items: null,
    approvers: {},
    quorum: 1,
    allowInitiator: true,
    initiatorUserId: null,
    onTimeout: "reject",
    expiresAt: new Date(Date.now() + 3_600_000),
    now: new Date(),
  });
  return { runId, resumeToken: opened.resumeToken };
}
/** A pending task assigned to every role (so every token's role matches it). */
async function taskIn(fx: WorkspaceFixture) {
  return openTestTask(t.db, fx, await runIn(fx), {
    outputSchema: { done: { type: "boolean", required: true } },
  });
}
const taskParams = async (fx: WorkspaceFixture) => ({ params: { id: await taskIn(fx) } });
const proposalDef = (value: number) => ({
  schemaVersion: 1,
  name: "P",
  constraints: { allowSelfModification: true },
  steps: [{ id: "s", type: "transform", config: { value } }],
});
/** A published workflow (created by the owner, whom every test token acts for) accepting proposals. */
async function proposableIn(fx: WorkspaceFixture) {
  const workflowId = await workflowIn(fx);
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId, definition: proposalDef(1) } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId } });
  return workflowId;
}
/** A low-risk proposal by an extra editor (never the token's user), optionally approved. */
async function proposalIn(fx: WorkspaceFixture, approved = false) {
  const proposer = makeCtx(
    t.db,
    { type: "user", userId: await fx.addMember("editor") },
    { id: fx.workspaceId, role: "editor" },
  );
  const { id } = await createProposal({
    ctx: proposer,
    input: {
      baseHash: "current",
      workflowId: await proposableIn(fx),
      summary: "bump",
      definition: proposalDef(2),
    },
  });
  if (approved) {
    const { reviewedContentHash } = await getProposal({
      ctx: fx.ctx("admin"),
      input: { proposalId: id },
    });
    await reviewProposal({
      ctx: fx.ctx("admin"),
      input: { proposalId: id, decision: "approve", shownHash: reviewedContentHash },
    });
  }
  return id;
}
const proposalParams = async (fx: WorkspaceFixture) => ({ params: { id: await proposalIn(fx) } });

const runParams = async (fx: WorkspaceFixture) => ({ params: { id: await runIn(fx) } });
const workflowParams = async (fx: WorkspaceFixture) => ({ params: { id: await workflowIn(fx) } });

/** A workflow with two versions: 1.0.0 (the starter) and 1.0.1. */
async function versionedIn(fx: WorkspaceFixture) {
  const workflowId = await workflowIn(fx);
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId, definition: proposalDef(7) } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId } });
  const versions = await listVersions({ ctx: fx.ctx("owner"), input: { workflowId } });
  return { workflowId, newest: versions[0]!.id, oldest: versions.at(-1)!.id };
}
async function namedWorkflowIn(fx: WorkspaceFixture) {
  const name = `Doomed ${Math.random()}`;
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name } });
  return { params: { id: w.id }, body: { confirmName: name } };
}
async function webhookIn(fx: WorkspaceFixture) {
  const r = await createTrigger({
    ctx: fx.ctx("owner"),
    input: { kind: "webhook", workflowId: await workflowIn(fx), name: "Hook", config: {} },
  });
  return r.trigger.id;
}
async function scheduleIn(fx: WorkspaceFixture) {
  const r = await createTrigger({
    ctx: fx.ctx("owner"),
    input: {
      kind: "schedule",
      workflowId: await workflowIn(fx),
      name: "Nightly",
      config: { cron: "0 3 * * *" },
    },
  });
  return r.trigger.id;
}
const triggerParams = async (fx: WorkspaceFixture) => ({ params: { id: await webhookIn(fx) } });
/** A finished (cancelled) run: reruns need a run that ended. */
async function endedRunIn(fx: WorkspaceFixture) {
  const runId = await runIn(fx);
  await cancelRun({ ctx: fx.ctx("owner"), input: { runId } });
  return runId;
}

const ROUTES: Record<string, RouteCase> = {
  "GET /api/v1/audit": {
    minRole: "admin",
    prepare: async () => ({ query: { action: "api_token.*" } }),
    expectOk: async (res) => {
      const body = await res.json();
      // At least the creation of the token making this request.
      expect(body.items.length).toBeGreaterThan(0);
      for (const e of body.items) expect(e.action).toMatch(/^api_token\./);
    },
  },
  "GET /api/v1/audit/verify": {
    minRole: "admin",
    expectOk: async (res) => {
      const body = await res.json();
      // The token's own creation is a chained audit row, so the chain has at least one link.
      expect(body).toMatchObject({ ok: true, firstBroken: null });
      expect(body.checked).toBeGreaterThan(0);
    },
  },
  "GET /api/v1/proposal-rules": {
    minRole: "viewer",
    expectOk: async (res) => {
      const body = await res.json();
      expect(Array.isArray(body.rules)).toBe(true);
      expect(body.presets.length).toBeGreaterThan(0);
    },
  },
  // A warning only, so later rows still create and review proposals in the workspace.
  "PUT /api/v1/proposal-rules": {
    minRole: "admin",
    prepare: async () => ({
      body: { rules: [{ name: "Note", expression: "true", effect: "warn" }], allowedDomains: [] },
    }),
    expectOk: async (res) => {
      expect((await res.json()).rules).toEqual([
        { name: "Note", expression: "true", effect: "warn", message: "" },
      ]);
    },
  },
  "POST /api/v1/proposal-rules/preview": {
    minRole: "admin",
    prepare: async () => ({
      body: { rules: [{ name: "Risky", expression: 'change.risk == "high"', effect: "warn" }] },
    }),
    expectOk: async (res) => {
      expect(Array.isArray((await res.json()).items)).toBe(true);
    },
  },
  "GET /api/v1/me": {
    minRole: "viewer",
    expectOk: async (res, fx) => {
      const body = await res.json();
      expect(body.currentWorkspace.id).toBe(fx.workspaceId);
      expect(body.via).toBe("token");
    },
  },
  "POST /api/v1/workflows/[id]/runs": {
    minRole: "editor",
    prepare: async (fx) => ({ params: { id: await workflowIn(fx) }, body: { input: {} } }),
    foreign: async (o) => ({ params: { id: await workflowIn(o) }, body: {} }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect((await res.json()).runId).toMatch(/^run_/);
    },
  },
  "POST /api/v1/workflows/[id]/test": {
    minRole: "editor",
    prepare: async (fx) => ({
      params: { id: await workflowIn(fx) },
      body: {
        stepId: "s",
        definition: {
          schemaVersion: 1,
          name: "Tested",
          steps: [{ id: "s", type: "transform", config: { value: 1 } }],
        },
      },
    }),
    foreign: async (o) => ({ params: { id: await workflowIn(o) }, body: { stepId: "s" } }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect((await res.json()).runId).toMatch(/^run_/);
    },
  },
  "POST /api/v1/runs": {
    minRole: "editor",
    prepare: async () => ({
      body: {
        definition: {
          schemaVersion: 1,
          name: "Inline",
          steps: [{ id: "s", type: "transform", config: { value: 1 } }],
        },
      },
    }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect((await res.json()).runId).toMatch(/^run_/);
    },
  },
  "GET /api/v1/runs/[id]": {
    minRole: "viewer",
    prepare: runParams,
    foreign: runParams,
  },
  "GET /api/v1/runs/[id]/steps": {
    minRole: "viewer",
    prepare: runParams,
    foreign: runParams,
  },
  "GET /api/v1/runs/[id]/events": {
    minRole: "viewer",
    prepare: runParams,
    foreign: runParams,
    expectOk: async (res) => {
      const body = await res.json();
      expect(body.events.map((e: { type: string }) => e.type)).toContain("run.queued");
    },
  },
  "POST /api/v1/runs/[id]/approve": {
    minRole: "approver",
    prepare: async (fx) => {
      const g = await gateIn(fx);
      return {
        params: { id: g.runId },
        body: { approve: true, resumeToken: g.resumeToken, reason: "ok" },
      };
    },
    foreign: async (o) => {
      const g = await gateIn(o);
      return { params: { id: g.runId }, body: { approve: true, resumeToken: g.resumeToken } };
    },
    expectOk: async (res) => {
      expect((await res.json()).status).toBe("approved");
    },
  },
  "GET /api/v1/tasks": {
    minRole: "viewer",
    prepare: async (fx) => {
      await taskIn(fx);
      return { query: { mine: "1" } };
    },
    expectOk: async (res) => {
      const body = await res.json();
      expect(body.items).toHaveLength(1);
      expect(body.items[0]).toMatchObject({ instructions: "Do it", canAct: true });
    },
  },
  "GET /api/v1/tasks/[id]": { minRole: "viewer", prepare: taskParams, foreign: taskParams },
  "POST /api/v1/tasks/[id]/complete": {
    minRole: "viewer",
    prepare: async (fx) => ({ ...(await taskParams(fx)), body: { output: { done: true } } }),
    foreign: async (o) => ({ ...(await taskParams(o)), body: { output: { done: true } } }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ status: "completed", output: { done: true } });
    },
  },
  "POST /api/v1/tasks/[id]/fail": {
    minRole: "viewer",
    prepare: async (fx) => ({ ...(await taskParams(fx)), body: { reason: "blocked" } }),
    foreign: async (o) => ({ ...(await taskParams(o)), body: { reason: "blocked" } }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ status: "failed", failureReason: "blocked" });
    },
  },
  "POST /api/v1/events": {
    minRole: "editor",
    prepare: async () => ({ body: { name: "order.paid", data: { total: 1 } } }),
    expectOk: async (res) => {
      expect(res.status).toBe(202);
      expect((await res.json()).ids).toHaveLength(1);
    },
  },
  "GET /api/v1/workflows/[id]/proposals": {
    minRole: "viewer",
    prepare: async (fx) => ({ params: { id: await proposableIn(fx) } }),
    foreign: async (o) => ({ params: { id: await proposableIn(o) } }),
  },
  "POST /api/v1/workflows/[id]/proposals": {
    minRole: "editor",
    prepare: async (fx) => ({
      params: { id: await proposableIn(fx) },
      body: { baseHash: "current", summary: "change", definition: proposalDef(3) },
    }),
    foreign: async (o) => ({
      params: { id: await proposableIn(o) },
      body: { baseHash: "current", summary: "hijack", definition: proposalDef(3) },
    }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({
        id: expect.stringMatching(/^prp_/),
        status: "pending",
      });
    },
  },
  "GET /api/v1/proposals/[id]": {
    minRole: "viewer",
    prepare: proposalParams,
    foreign: proposalParams,
  },
  "POST /api/v1/proposals/[id]/review": {
    minRole: "approver",
    prepare: async (fx) => ({
      params: { id: await proposalIn(fx) },
      body: { decision: "approve", notes: "ok" },
    }),
    foreign: async (o) => ({ params: { id: await proposalIn(o) }, body: { decision: "approve" } }),
    expectOk: async (res) => {
      expect(await res.json()).toEqual({ status: "approved" });
    },
  },
  "POST /api/v1/proposals/[id]/apply": {
    minRole: "editor",
    prepare: async (fx) => ({ params: { id: await proposalIn(fx, true) }, body: {} }),
    foreign: async (o) => ({ params: { id: await proposalIn(o, true) }, body: {} }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ version: "1.0.2" });
    },
  },
  "GET /api/v1": {
    minRole: null,
    expectOk: async (res) => {
      expect((await res.json()).openapi).toBe("/api/v1/openapi.json");
    },
  },
  "GET /api/v1/openapi.json": {
    minRole: null,
    expectOk: async (res) => {
      expect((await res.json()).openapi).toBe("3.1.0");
    },
  },
  "GET /api/v1/workflows": {
    minRole: "viewer",
    prepare: async (fx) => {
      await workflowIn(fx);
      return { query: { limit: "5" } };
    },
    expectOk: async (res) => {
      expect((await res.json()).items).toHaveLength(1);
    },
  },
  "POST /api/v1/workflows": {
    minRole: "editor",
    prepare: async () => ({ body: { name: "Made over HTTP", tags: ["api"] } }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({ slug: "made-over-http", version: "1.0.0" });
    },
  },
  "POST /api/v1/workflows/validate": {
    minRole: "viewer",
    prepare: async () => ({ body: { definition: proposalDef(1) } }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ ok: true, hash: expect.stringMatching(/^sha256:/) });
    },
  },
  "POST /api/v1/workflows/import": {
    minRole: "editor",
    prepare: async () => ({ body: { content: JSON.stringify(proposalDef(4)) } }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
    },
  },
  "PUT /api/v1/workflows/sync": {
    minRole: "editor",
    prepare: async () => ({ body: { workflows: [{ slug: "synced", ...proposalDef(1) }] } }),
    expectOk: async (res) => {
      expect((await res.json()).plan).toEqual([
        expect.objectContaining({ slug: "synced", action: "create", version: "1.0.0" }),
      ]);
    },
  },
  "GET /api/v1/workflows/[id]": {
    minRole: "viewer",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "PATCH /api/v1/workflows/[id]": {
    minRole: "editor",
    prepare: async (fx) => ({ ...(await workflowParams(fx)), body: { description: "d" } }),
    foreign: async (o) => ({ ...(await workflowParams(o)), body: { description: "hijack" } }),
  },
  "DELETE /api/v1/workflows/[id]": {
    minRole: "editor",
    prepare: namedWorkflowIn,
    foreign: namedWorkflowIn,
  },
  "PUT /api/v1/workflows/[id]/draft": {
    minRole: "editor",
    prepare: async (fx) => ({
      ...(await workflowParams(fx)),
      body: { definition: proposalDef(2) },
    }),
    foreign: async (o) => ({ ...(await workflowParams(o)), body: { definition: proposalDef(2) } }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ changed: true });
    },
  },
  "POST /api/v1/workflows/[id]/publish": {
    minRole: "editor",
    prepare: async (fx) => ({ params: { id: await proposableIn(fx) }, body: { bump: "minor" } }),
    foreign: async (o) => ({ params: { id: await workflowIn(o) }, body: {} }),
    expectOk: async (res) => {
      expect((await res.json()).status).toBe("unchanged");
    },
  },
  "POST /api/v1/workflows/[id]/enable": {
    minRole: "editor",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "POST /api/v1/workflows/[id]/disable": {
    minRole: "editor",
    prepare: workflowParams,
    foreign: workflowParams,
    expectOk: async (res) => {
      expect((await res.json()).isEnabled).toBe(false);
    },
  },
  "GET /api/v1/workflows/[id]/export": {
    minRole: "viewer",
    prepare: async (fx) => ({ ...(await workflowParams(fx)), query: { format: "yaml" } }),
    foreign: workflowParams,
    expectOk: async (res) => {
      expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
      expect(await res.text()).toMatch(/schemaVersion: 1/);
    },
  },
  "GET /api/v1/workflows/[id]/versions": {
    minRole: "viewer",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "GET /api/v1/workflows/[id]/versions/[versionId]": {
    minRole: "viewer",
    prepare: async (fx) => {
      const v = await versionedIn(fx);
      return { params: { id: v.workflowId, versionId: v.oldest } };
    },
    foreign: async (o) => {
      const v = await versionedIn(o);
      return { params: { id: v.workflowId, versionId: v.oldest } };
    },
  },
  "GET /api/v1/workflows/[id]/versions/compare": {
    minRole: "viewer",
    prepare: async (fx) => {
      const v = await versionedIn(fx);
      return { params: { id: v.workflowId }, query: { from: v.oldest, to: v.newest } };
    },
    foreign: async (o) => {
      const v = await versionedIn(o);
      return { params: { id: v.workflowId }, query: { from: v.oldest, to: v.newest } };
    },
  },
  "POST /api/v1/workflows/[id]/rollback": {
    minRole: "editor",
    prepare: async (fx) => {
      const v = await versionedIn(fx);
      return { params: { id: v.workflowId }, body: { versionId: v.oldest } };
    },
    foreign: async (o) => {
      const v = await versionedIn(o);
      return { params: { id: v.workflowId }, body: { versionId: v.oldest } };
    },
  },
  "GET /api/v1/workflows/[id]/runs": {
    minRole: "viewer",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "GET /api/v1/workflows/[id]/triggers": {
    minRole: "viewer",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "POST /api/v1/workflows/[id]/triggers": {
    minRole: "editor",
    prepare: async (fx) => ({
      ...(await workflowParams(fx)),
      body: { kind: "event", name: "On paid", config: { event: "order.paid" } },
    }),
    foreign: async (o) => ({
      ...(await workflowParams(o)),
      body: { kind: "event", name: "Hijack", config: { event: "order.paid" } },
    }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
    },
  },
  "GET /api/v1/runs": {
    minRole: "viewer",
    prepare: async (fx) => {
      await runIn(fx);
      return { query: { status: "queued,running" } };
    },
    expectOk: async (res) => {
      expect((await res.json()).items).toHaveLength(1);
    },
  },
  "POST /api/v1/runs/[id]/rerun": {
    minRole: "editor",
    prepare: async (fx) => ({ params: { id: await endedRunIn(fx) }, body: {} }),
    foreign: async (o) => ({ params: { id: await endedRunIn(o) }, body: {} }),
  },
  "GET /api/v1/runs/[id]/diff": {
    minRole: "viewer",
    prepare: async (fx) => ({ params: { id: await runIn(fx) }, query: { with: await runIn(fx) } }),
    foreign: async (o) => ({ params: { id: await runIn(o) }, query: { with: await runIn(o) } }),
    expectOk: async (res) => {
      expect(Array.isArray((await res.json()).steps)).toBe(true);
    },
  },
  "GET /api/v1/runs/[id]/rerun/preview": {
    minRole: "viewer",
    prepare: async (fx) => ({ params: { id: await endedRunIn(fx) } }),
    foreign: async (o) => ({ params: { id: await endedRunIn(o) } }),
  },
  "GET /api/v1/proposals/[id]/impact": {
    minRole: "viewer",
    prepare: proposalParams,
    foreign: proposalParams,
  },
  "GET /api/v1/proposals/[id]/replay": {
    minRole: "viewer",
    prepare: proposalParams,
    foreign: proposalParams,
    expectOk: async (res) => {
      expect((await res.json()).verification.level).toBeTypeOf("string");
    },
  },
  "GET /api/v1/alerts": { minRole: "viewer" },
  "GET /api/v1/alerts/settings": { minRole: "viewer" },
  "PUT /api/v1/alerts/settings": {
    minRole: "admin",
    prepare: async () => ({
      body: { channels: [], windowMinutes: 60, gateAgeHours: 24, rejectThreshold: 20 },
    }),
  },
  "GET /api/v1/workflows/[id]/alerts": {
    minRole: "viewer",
    prepare: workflowParams,
    foreign: workflowParams,
  },
  "PUT /api/v1/workflows/[id]/alerts": {
    minRole: "editor",
    prepare: async (fx) => ({
      params: { id: await workflowIn(fx) },
      body: { channels: null, errorWorkflowId: null },
    }),
    foreign: async (o) => ({
      params: { id: await workflowIn(o) },
      body: { channels: null, errorWorkflowId: null },
    }),
  },
  "GET /api/v1/triggers/[id]": {
    minRole: "viewer",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "PATCH /api/v1/triggers/[id]": {
    minRole: "editor",
    prepare: async (fx) => ({ ...(await triggerParams(fx)), body: { name: "Renamed" } }),
    foreign: async (o) => ({ ...(await triggerParams(o)), body: { name: "Hijack" } }),
  },
  "DELETE /api/v1/triggers/[id]": {
    minRole: "editor",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "POST /api/v1/triggers/[id]/take-over": {
    minRole: "editor",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "POST /api/v1/triggers/[id]/enable": {
    minRole: "editor",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "POST /api/v1/triggers/[id]/disable": {
    minRole: "editor",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "POST /api/v1/triggers/[id]/fire": {
    minRole: "editor",
    prepare: async (fx) => ({ ...(await triggerParams(fx)), body: { input: {} } }),
    foreign: async (o) => ({ ...(await triggerParams(o)), body: {} }),
  },
  "GET /api/v1/triggers/[id]/deliveries": {
    minRole: "viewer",
    prepare: triggerParams,
    foreign: triggerParams,
  },
  "GET /api/v1/triggers/[id]/ticks": {
    minRole: "viewer",
    prepare: async (fx) => ({ params: { id: await scheduleIn(fx) } }),
    foreign: async (o) => ({ params: { id: await scheduleIn(o) } }),
  },
  "POST /api/v1/runs/[id]/cancel": {
    minRole: "editor",
    prepare: runParams,
    foreign: runParams,
  },
};

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("apiauthz");
  setProcessDb(t);
});
afterAll(async () => {
  await t?.close();
});

async function invoke(key: string, token: string | null, prep: Prepared = {}) {
  const [method, routePath] = key.split(" ") as [string, string];
  const mod = await loadRouteModule(routePath);
  const handler = mod[method] as Handler;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const url = new URL(
    `http://localhost${routePath.replace(/\[(\w+)\]/g, (_, k: string) => prep.params?.[k] ?? "x")}`,
  );
  for (const [k, v] of Object.entries(prep.query ?? {})) url.searchParams.set(k, v);
  const req = new Request(url, {
    method,
    headers,
    body: prep.body === undefined || method === "GET" ? undefined : JSON.stringify(prep.body),
  });
  return handler(req, { params: Promise.resolve(prep.params ?? {}) });
}

describe("/api/v1 authorization matrix", () => {
  it("covers every route and method", async () => {
    const routes = await discoverApiRoutes();
    expect(Object.keys(ROUTES).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  for (const [key, c] of Object.entries(ROUTES)) {
    describe(key, () => {
      if (c.minRole === null) {
        it("is public: answers without a token, and ignores a bad one", async () => {
          for (const token of [null, "garbage"]) {
            const res = await invoke(key, token);
            expect(res.status).toBe(200);
            await c.expectOk?.(res, await createWorkspaceFixture(t.db, "Pub"));
          }
        });
        return;
      }
      const minRole = c.minRole;

      it("refuses a missing, malformed or revoked token with 401 JSON", async () => {
        const fx = await createWorkspaceFixture(t.db, "Api");
        for (const token of [null, "garbage", "slu_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
          const res = await invoke(key, token, await c.prepare?.(fx));
          expect(res.status).toBe(401);
          expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
          expect((await res.json()).error).toMatchObject({ code: "unauthorized" });
        }
        const tok = await createApiToken({
          ctx: fx.ctx("owner"),
          input: { name: "r", role: "owner" },
        });
        await revokeApiToken({ ctx: fx.ctx("owner"), input: { tokenId: tok.id } });
        expect((await invoke(key, tok.token, await c.prepare?.(fx))).status).toBe(401);
      });

      for (const role of ROLES) {
        it(`token with role ${role}`, async () => {
          const fx = await createWorkspaceFixture(t.db, "Api");
          const tok = await createApiToken({ ctx: fx.ctx("owner"), input: { name: role, role } });
          const res = await invoke(key, tok.token, await c.prepare?.(fx));
          if (hasRole(role, minRole)) {
            expect(res.status, await res.clone().text()).toBeLessThan(300);
            await c.expectOk?.(res, fx);
          } else {
            expect(res.status).toBe(403);
            expect((await res.json()).error.code).toBe("forbidden");
          }
        });
      }

      if (c.foreign) {
        it("answers 404 for another workspace's resources", async () => {
          const mine = await createWorkspaceFixture(t.db, "Mine");
          const other = await createWorkspaceFixture(t.db, "Other");
          const tok = await createApiToken({
            ctx: mine.ctx("owner"),
            input: { name: "o", role: "owner" },
          });
          const res = await invoke(key, tok.token, await c.foreign!(other));
          expect(res.status, await res.clone().text()).toBe(404);
          expect((await res.json()).error.code).toBe("not_found");
        });
      }
    });
  }
});
