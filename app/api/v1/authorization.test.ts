/**
 * Authorization matrix for the public HTTP API: every /api/v1 route × (no token, a garbage token,
 * a token of each role, a revoked token, a token of another workspace) → allowed or refused.
 * Route files are discovered from disk, so a new route without a row here fails the test.
 */
import fs from "node:fs";
import path from "node:path";
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
import { openApproval } from "@/server/services/engine/approval-gate";
import { startRun } from "@/server/services/runs/start-run";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { makeCtx } from "@/server/testing/harness";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { getProposal } from "@/server/services/proposals/get-proposal";
import { reviewProposal } from "@/server/services/proposals/review-proposal";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;
interface RouteCase {
  minRole: Role;
  load: () => Promise<Record<string, unknown>>;
  /** Params and body for a call that succeeds for an allowed caller in `fx`. */
  prepare?: (fx: WorkspaceFixture) => Promise<{ params?: Record<string, string>; body?: unknown }>;
  /** Params naming another workspace's resource: must answer 404 (or 403), never 2xx. */
  foreign?: (
    other: WorkspaceFixture,
  ) => Promise<{ params?: Record<string, string>; body?: unknown }>;
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
    workflowId: run!.workflowId,
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
    input: { workflowId: await proposableIn(fx), summary: "bump", definition: proposalDef(2) },
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

const ROUTES: Record<string, RouteCase> = {
  "GET /api/v1/me": {
    minRole: "viewer",
    load: () => import("./me/route"),
    expectOk: async (res, fx) => {
      const body = await res.json();
      expect(body.currentWorkspace.id).toBe(fx.workspaceId);
      expect(body.via).toBe("token");
    },
  },
  "POST /api/v1/workflows/[id]/runs": {
    minRole: "editor",
    load: () => import("./workflows/[id]/runs/route"),
    prepare: async (fx) => ({ params: { id: await workflowIn(fx) }, body: { input: {} } }),
    foreign: async (o) => ({ params: { id: await workflowIn(o) }, body: {} }),
    expectOk: async (res) => {
      expect(res.status).toBe(201);
      expect((await res.json()).runId).toMatch(/^run_/);
    },
  },
  "GET /api/v1/runs/[id]": {
    minRole: "viewer",
    load: () => import("./runs/[id]/route"),
    prepare: runParams,
    foreign: runParams,
  },
  "GET /api/v1/runs/[id]/steps": {
    minRole: "viewer",
    load: () => import("./runs/[id]/steps/route"),
    prepare: runParams,
    foreign: runParams,
  },
  "GET /api/v1/runs/[id]/events": {
    minRole: "viewer",
    load: () => import("./runs/[id]/events/route"),
    prepare: runParams,
    foreign: runParams,
    expectOk: async (res) => {
      const body = await res.json();
      expect(body.events.map((e: { type: string }) => e.type)).toContain("run.queued");
    },
  },
  "POST /api/v1/runs/[id]/approve": {
    minRole: "approver",
    load: () => import("./runs/[id]/approve/route"),
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
  "POST /api/v1/events": {
    minRole: "editor",
    load: () => import("./events/route"),
    prepare: async () => ({ body: { name: "order.paid", data: { total: 1 } } }),
    expectOk: async (res) => {
      expect(res.status).toBe(202);
      expect((await res.json()).ids).toHaveLength(1);
    },
  },
  "GET /api/v1/workflows/[id]/proposals": {
    minRole: "viewer",
    load: () => import("./workflows/[id]/proposals/route"),
    prepare: async (fx) => ({ params: { id: await proposableIn(fx) } }),
    foreign: async (o) => ({ params: { id: await proposableIn(o) } }),
  },
  "POST /api/v1/workflows/[id]/proposals": {
    minRole: "editor",
    load: () => import("./workflows/[id]/proposals/route"),
    prepare: async (fx) => ({
      params: { id: await proposableIn(fx) },
      body: { summary: "change", definition: proposalDef(3) },
    }),
    foreign: async (o) => ({
      params: { id: await proposableIn(o) },
      body: { summary: "hijack", definition: proposalDef(3) },
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
    load: () => import("./proposals/[id]/route"),
    prepare: proposalParams,
    foreign: proposalParams,
  },
  "POST /api/v1/proposals/[id]/review": {
    minRole: "approver",
    load: () => import("./proposals/[id]/review/route"),
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
    load: () => import("./proposals/[id]/apply/route"),
    prepare: async (fx) => ({ params: { id: await proposalIn(fx, true) }, body: {} }),
    foreign: async (o) => ({ params: { id: await proposalIn(o, true) }, body: {} }),
    expectOk: async (res) => {
      expect(await res.json()).toMatchObject({ version: "1.0.2" });
    },
  },
  "POST /api/v1/runs/[id]/cancel": {
    minRole: "editor",
    load: () => import("./runs/[id]/cancel/route"),
    prepare: runParams,
    foreign: runParams,
  },
};

function discoverRoutes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") {
        const src = fs.readFileSync(p, "utf8");
        const rel =
          "/" + path.relative(path.resolve("app"), path.dirname(p)).split(path.sep).join("/");
        for (const m of src.matchAll(
          /export (?:const|async function) (GET|POST|PUT|PATCH|DELETE)\b/g,
        ))
          found.push(`${m[1]} ${rel}`);
      }
    }
  };
  walk(path.resolve("app/api/v1"));
  return found.sort();
}

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("apiauthz");
  setProcessDb(t);
});
afterAll(async () => {
  await t?.close();
});

async function invoke(
  key: string,
  c: RouteCase,
  token: string | null,
  prep: { params?: Record<string, string>; body?: unknown } = {},
) {
  const [method] = key.split(" ") as [string];
  const mod = await c.load();
  const handler = mod[method] as Handler;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const pattern = key
    .split(" ")[1]!
    .replace(/\[(\w+)\]/g, (_, k: string) => prep.params?.[k] ?? "x");
  const req = new Request(`http://localhost${pattern}`, {
    method,
    headers,
    body: prep.body === undefined || method === "GET" ? undefined : JSON.stringify(prep.body),
  });
  return handler(req, { params: Promise.resolve(prep.params ?? {}) });
}

describe("/api/v1 authorization matrix", () => {
  it("covers every route", () => {
    expect(Object.keys(ROUTES).sort()).toEqual(discoverRoutes());
  });

  for (const [key, c] of Object.entries(ROUTES)) {
    describe(key, () => {
      it("refuses a missing, malformed or revoked token with 401 JSON", async () => {
        const fx = await createWorkspaceFixture(t.db, "Api");
        for (const token of [null, "garbage", "slu_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
          const res = await invoke(key, c, token, await c.prepare?.(fx));
          expect(res.status).toBe(401);
          expect((await res.json()).error).toMatchObject({ code: "unauthorized" });
        }
        const tok = await createApiToken({
          ctx: fx.ctx("owner"),
          input: { name: "r", role: "owner" },
        });
        await revokeApiToken({ ctx: fx.ctx("owner"), input: { tokenId: tok.id } });
        expect((await invoke(key, c, tok.token, await c.prepare?.(fx))).status).toBe(401);
      });

      for (const role of ROLES) {
        it(`token with role ${role}`, async () => {
          const fx = await createWorkspaceFixture(t.db, "Api");
          const tok = await createApiToken({ ctx: fx.ctx("owner"), input: { name: role, role } });
          const res = await invoke(key, c, tok.token, await c.prepare?.(fx));
          if (hasRole(role, c.minRole)) {
            expect(res.status, await res.clone().text()).toBeLessThan(300);
            await c.expectOk?.(res, fx);
          } else {
            expect(res.status).toBe(403);
            expect((await res.json()).error.code).toBe("forbidden");
          }
        });
      }

      if (c.foreign) {
        it("cannot reach another workspace's resources", async () => {
          const mine = await createWorkspaceFixture(t.db, "Mine");
          const other = await createWorkspaceFixture(t.db, "Other");
          const tok = await createApiToken({
            ctx: mine.ctx("owner"),
            input: { name: "o", role: "owner" },
          });
          const res = await invoke(key, c, tok.token, await c.foreign!(other));
          expect([403, 404]).toContain(res.status);
        });
      }
    });
  }
});
