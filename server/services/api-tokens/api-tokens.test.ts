/**
 * Personal API tokens for every member: any role may mint tokens capped at its own role; members
 * list and revoke their own, admins everyone's; nothing crosses workspaces. Checked on the
 * service, through tRPC, and by using the minted tokens against /api/v1.
 */
import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { memberships } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { ROLES, hasRole, type Role } from "@/lib/schemas/roles";
import { createWorkspaceFixture, makeCtx, type WorkspaceFixture } from "@/server/testing/harness";
import { createCaller } from "@/server/trpc/root";
import * as meRoute from "@/app/api/v1/me/route";
import { authenticateApiToken } from "./authenticate-api-token";
import { createApiToken } from "./create-api-token";
import { listApiTokens } from "./list-api-tokens";
import { revokeApiToken } from "./revoke-api-token";

let t: TestDb;
let fx: WorkspaceFixture;
let other: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("apitokens");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Tok");
  other = await createWorkspaceFixture(t.db, "TokOther");
});
afterAll(async () => {
  await t?.close();
});

const MEMBER_ROLES: Role[] = ["viewer", "approver", "editor", "admin"];

async function errorCode(p: Promise<unknown>) {
  try {
    await p;
    return "ok";
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe("creating tokens", () => {
  for (const role of MEMBER_ROLES) {
    it(`${role}: up to its own role, never above`, async () => {
      for (const wanted of ROLES) {
        const outcome = await errorCode(
          createApiToken({ ctx: fx.ctx(role), input: { name: `${role}-${wanted}`, role: wanted } }),
        );
        expect(outcome, `${role} → ${wanted}`).toBe(hasRole(role, wanted) ? "ok" : "FORBIDDEN");
      }
    });
  }

  it("the same rule through tRPC, and the minted token acts at its role on /api/v1", async () => {
    const viewer = createCaller({ svc: fx.ctx("viewer") });
    const refused = await viewer.apiToken
      .create({ name: "too-high", role: "editor" })
      .catch((e: TRPCError) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("FORBIDDEN");
    expect((refused as TRPCError).message).toMatch(/above yours \(viewer\)/);
    const made = await viewer.apiToken.create({ name: "mine", role: "viewer" });
    const res = await meRoute.GET(
      new Request("http://localhost/api/v1/me", {
        headers: { authorization: `Bearer ${made.token}` },
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).currentWorkspace).toMatchObject({
      id: fx.workspaceId,
      role: "viewer",
    });
  });

  it("a token cannot mint tokens, whatever its role", async () => {
    const tok = await createApiToken({ ctx: fx.ctx("owner"), input: { name: "o", role: "owner" } });
    const id = await authenticateApiToken(t.db, tok.token, new Date());
    const asToken = makeCtx(
      t.db,
      { type: "token", tokenId: id!.tokenId, userId: id!.userId },
      { id: fx.workspaceId, role: "owner" },
    );
    expect(
      await errorCode(createApiToken({ ctx: asToken, input: { name: "x", role: "viewer" } })),
    ).toBe("FORBIDDEN");
  });

  it("a demoted member's token is capped at the new role", async () => {
    const userId = await fx.addMember("editor");
    const ctx = makeCtx(t.db, { type: "user", userId }, { id: fx.workspaceId, role: "editor" });
    const tok = await createApiToken({ ctx, input: { name: "e", role: "editor" } });
    await t.db
      .update(memberships)
      .set({ role: "viewer" })
      .where(and(eq(memberships.userId, userId), eq(memberships.workspaceId, fx.workspaceId)));
    expect((await authenticateApiToken(t.db, tok.token, new Date()))?.role).toBe("viewer");
  });
});

describe("listing and revoking", () => {
  it("members see and revoke only their own; admins see and revoke all; no workspace leaks", async () => {
    const ws = await createWorkspaceFixture(t.db, "Lr");
    const mine: Record<string, string> = {};
    for (const role of [...MEMBER_ROLES, "owner"] as Role[])
      mine[role] = (
        await createApiToken({ ctx: ws.ctx(role), input: { name: `by-${role}`, role: "viewer" } })
      ).id;
    const foreign = await createApiToken({
      ctx: other.ctx("owner"),
      input: { name: "foreign", role: "viewer" },
    });

    for (const role of ["viewer", "approver", "editor"] as Role[]) {
      const listed = await listApiTokens({ ctx: ws.ctx(role) });
      expect(listed.map((x) => x.name)).toEqual([`by-${role}`]);
      expect(listed[0]!.isMine).toBe(true);
      const viaTrpc = await createCaller({ svc: ws.ctx(role) }).apiToken.list();
      expect(viaTrpc.map((x) => x.id)).toEqual([mine[role]]);
      // Someone else's token is not found, exactly like a missing one.
      expect(
        await errorCode(revokeApiToken({ ctx: ws.ctx(role), input: { tokenId: mine.owner! } })),
      ).toBe("NOT_FOUND");
    }
    for (const role of ["admin", "owner"] as Role[]) {
      const listed = await listApiTokens({ ctx: ws.ctx(role) });
      expect(listed.map((x) => x.name).sort()).toEqual(
        ["by-admin", "by-approver", "by-editor", "by-owner", "by-viewer"].sort(),
      );
      expect(listed.filter((x) => x.isMine).map((x) => x.name)).toEqual([`by-${role}`]);
      expect(
        await errorCode(revokeApiToken({ ctx: ws.ctx(role), input: { tokenId: foreign.id } })),
      ).toBe("NOT_FOUND");
    }

    // Own tokens: any member revokes them.
    await revokeApiToken({ ctx: ws.ctx("viewer"), input: { tokenId: mine.viewer! } });
    // Admins revoke anyone's.
    await revokeApiToken({ ctx: ws.ctx("admin"), input: { tokenId: mine.editor! } });
    const after = await listApiTokens({ ctx: ws.ctx("owner") });
    const status = Object.fromEntries(after.map((x) => [x.name, x.status]));
    expect(status).toMatchObject({
      "by-viewer": "revoked",
      "by-editor": "revoked",
      "by-owner": "active",
    });
    // The other workspace's token is untouched.
    expect((await listApiTokens({ ctx: other.ctx("owner") }))[0]).toMatchObject({
      name: "foreign",
      status: "active",
    });
  });
});
