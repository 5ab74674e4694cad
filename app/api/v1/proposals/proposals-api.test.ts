/**
 * The proposal routes' own error codes over HTTP and tRPC: 403 self_review, 409 stale_base with
 * the three definitions, 410 expired, 400 invalid_patch naming the operation.
 */
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { proposals } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createCaller } from "@/server/trpc/root";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as listRoute from "../workflows/[id]/proposals/route";
import * as getRoute from "./[id]/route";
import * as reviewRoute from "./[id]/review/route";
import * as applyRoute from "./[id]/apply/route";

let t: TestDb;
let fx: WorkspaceFixture;
let adminToken: string;
beforeAll(async () => {
  t = await createTestDb("proposalsapi");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Api");
  adminToken = (await createApiToken({ ctx: fx.ctx("admin"), input: { name: "a", role: "admin" } }))
    .token;
});
afterAll(async () => {
  await t?.close();
});

const def = (value: number) => ({
  schemaVersion: 1,
  name: "P",
  constraints: { allowSelfModification: true },
  steps: [{ id: "s", type: "transform", config: { value } }],
});

async function call(
  handler: (req: Request, c: { params: Promise<{ id: string }> }) => Promise<Response>,
  method: string,
  id: string,
  body?: unknown,
  token = adminToken,
) {
  const res = await handler(
    new Request(`http://localhost/api/v1/x/${id}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, body: await res.json() };
}

async function workflow() {
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `W ${Math.random()}` } });
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId: w.id, definition: def(1) } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
  return w.id;
}

describe("proposals over HTTP", () => {
  it("creates from a patch, refuses self-review (HTTP and tRPC), reviews and applies", async () => {
    const workflowId = await workflow();
    const bad = await call(listRoute.POST, "POST", workflowId, {
      baseHash: "current",
      summary: "bad",
      patch: [{ op: "remove", path: "/steps/9" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_patch", details: { index: 0 } });
    const created = await call(listRoute.POST, "POST", workflowId, {
      baseHash: "current",
      summary: "two",
      patch: [{ op: "replace", path: "/steps/0/config/value", value: 2 }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The token acts for the admin who proposed: self-review on every path.
    const self = await call(reviewRoute.POST, "POST", id, { decision: "approve" });
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe("self_review");
    const detail = await call(getRoute.GET, "GET", id);
    const caller = createCaller({ svc: fx.ctx("admin") });
    const viaTrpc = await caller.proposal
      .review({ proposalId: id, decision: "approve", shownHash: detail.body.reviewedContentHash })
      .catch((e: TRPCError) => e);
    expect(viaTrpc).toBeInstanceOf(TRPCError);
    expect((viaTrpc as TRPCError).code).toBe("FORBIDDEN");
    expect((viaTrpc as TRPCError).message).toMatch(/someone else must approve/);
    const owner = (
      await createApiToken({ ctx: fx.ctx("owner"), input: { name: "o", role: "owner" } })
    ).token;
    expect(
      (
        await call(
          reviewRoute.POST,
          "POST",
          id,
          { decision: "approve", shownHash: detail.body.reviewedContentHash },
          owner,
        )
      ).body,
    ).toEqual({ status: "approved" });
    const listed = await call(listRoute.GET, "GET", workflowId);
    expect(listed.body.items[0]).toMatchObject({ id, status: "approved" });
    const applied = await call(applyRoute.POST, "POST", id, { bump: "major" });
    expect(applied.body).toMatchObject({ version: "2.0.0" });
  });

  it('every proposal names its base: missing or malformed → 400 naming baseHash; "current" is recorded as asked', async () => {
    const workflowId = await workflow();
    const change = { summary: "named", definition: def(5) };
    const missing = await call(listRoute.POST, "POST", workflowId, change);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("validation");
    expect(missing.body.error.details.issues[0].path).toEqual(["baseHash"]);
    expect(missing.body.error.message).toMatch(/baseHash/);
    // Malformed is a validation error, not a stale base.
    for (const baseHash of ["sha256:abc", "latest", "SHA256:" + "0".repeat(64), ""]) {
      const bad = await call(listRoute.POST, "POST", workflowId, { ...change, baseHash });
      expect(bad.status, baseHash).toBe(400);
      expect(bad.body.error.details.issues[0].path).toEqual(["baseHash"]);
      expect(bad.body.error.message).toMatch(
        /"sha256:" followed by 64 lower-case hex digits, or "current"/,
      );
    }
    // tRPC (the editor's "Propose change") refuses the same way.
    const caller = createCaller({ svc: fx.ctx("admin") });
    for (const input of [
      { workflowId, ...change },
      { workflowId, ...change, baseHash: "sha256:abc" },
    ]) {
      const e = await caller.proposal.create(input as never).catch((x: TRPCError) => x);
      expect(e).toBeInstanceOf(TRPCError);
      expect((e as TRPCError).code).toBe("BAD_REQUEST");
      expect((e as TRPCError).message).toMatch(/baseHash/);
    }
    const current = await call(listRoute.POST, "POST", workflowId, {
      ...change,
      baseHash: "current",
    });
    expect(current.status).toBe(201);
    const shown = await call(getRoute.GET, "GET", current.body.id);
    expect(shown.body.baseRequested).toBe("current");
    expect(shown.body.baseHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(shown.body.base.hash).toBe(shown.body.baseHash);
    const named = await call(listRoute.POST, "POST", workflowId, {
      summary: "named by hash",
      baseHash: shown.body.baseHash,
      definition: def(6),
    });
    expect(named.status).toBe(201);
    const listed = await call(listRoute.GET, "GET", workflowId);
    expect(
      Object.fromEntries(
        listed.body.items.map((i: { id: string; baseRequested: string }) => [
          i.id,
          i.baseRequested,
        ]),
      ),
    ).toEqual({ [current.body.id]: "current", [named.body.id]: shown.body.baseHash });
  });

  it("409 stale_base with base, current and proposed; 410 expired", async () => {
    const workflowId = await workflow();
    const detail = await call(listRoute.POST, "POST", workflowId, {
      baseHash: "current",
      summary: "3",
      definition: def(3),
    });
    const owner = fx.ctx("owner");
    const p = await createCaller({ svc: owner }).proposal.get({ proposalId: detail.body.id });
    const stale = await call(listRoute.POST, "POST", workflowId, {
      summary: "late",
      baseHash: "sha256:" + "0".repeat(64),
      definition: def(4),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: "stale_base",
      details: {
        currentHash: p.baseHash,
        current: { steps: [{ config: { value: 1 } }] },
        proposed: { name: "P" },
      },
    });
    await t.db
      .update(proposals)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(proposals.id, p.id));
    const expired = await call(
      reviewRoute.POST,
      "POST",
      p.id,
      { decision: "approve" },
      (await createApiToken({ ctx: owner, input: { name: "x", role: "owner" } })).token,
    );
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("expired");
  });
});
