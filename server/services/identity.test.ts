import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, memberships, users } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from "../errors";
import { createWorkspaceFixture, makeCtx, testConfig } from "../testing/harness";
import { authenticateApiToken } from "./api-tokens/authenticate-api-token";
import { createApiToken } from "./api-tokens/create-api-token";
import { listApiTokens } from "./api-tokens/list-api-tokens";
import { revokeApiToken } from "./api-tokens/revoke-api-token";
import { signUp } from "./auth/sign-up";
import { verifyCredentials } from "./auth/verify-credentials";
import { acceptInvitation } from "./invitations/accept-invitation";
import { createInvitation } from "./invitations/create-invitation";
import { getInvitation } from "./invitations/get-invitation";
import { revokeInvitation } from "./invitations/revoke-invitation";
import { changeMemberRole } from "./members/change-member-role";
import { removeMember } from "./members/remove-member";
import { getMe } from "./me/get-me";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("identity");
});
afterAll(async () => {
  await t?.close();
});

const anon = () => makeCtx(t.db, { type: "anonymous" });

describe("sign-up policy", () => {
  it("makes the first user owner of a new workspace, then requires an invitation", async () => {
    const first = await signUp({
      ctx: anon(),
      input: { name: "Ada Lovelace", email: "ADA@example.com ", password: "correct horse battery" },
    });
    expect(first.createdWorkspace).toBe(true);
    const [m] = await t.db.select().from(memberships).where(eq(memberships.userId, first.userId));
    expect(m?.role).toBe("owner");
    const [u] = await t.db.select().from(users).where(eq(users.id, first.userId));
    expect(u?.email).toBe("ada@example.com");
    expect(u?.passwordHash).toMatch(/^scrypt\$/);

    await expect(
      signUp({
        ctx: anon(),
        input: { name: "Eve", email: "eve@example.com", password: "0123456789ab" },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      signUp({
        ctx: anon(),
        input: { name: "Ada 2", email: "ada@example.com", password: "0123456789ab" },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);

    const open = makeCtx(t.db, { type: "anonymous" }, undefined, {
      config: { ...testConfig, openSignup: true },
    });
    const bob = await signUp({
      ctx: open,
      input: { name: "Bob", email: "bob@example.com", password: "0123456789ab" },
    });
    expect(bob.createdWorkspace).toBe(true);
    await expect(
      signUp({
        ctx: open,
        input: { name: "Bob", email: "BOB@example.com", password: "0123456789ab" },
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("rejects malformed sign-up input with a message naming the field", async () => {
    const err = await signUp({
      ctx: anon(),
      input: { name: "", email: "not-an-email", password: "short" },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.path?.join("."))).toEqual(
      expect.arrayContaining(["name", "email", "password"]),
    );
  });

  it("verifies credentials and refuses wrong passwords and unknown emails", async () => {
    expect(
      await verifyCredentials(t.db, {
        email: "ada@example.com",
        password: "correct horse battery",
      }),
    ).toMatchObject({ email: "ada@example.com" });
    expect(
      await verifyCredentials(t.db, { email: "ada@example.com", password: "wrong password!" }),
    ).toBeNull();
    expect(
      await verifyCredentials(t.db, {
        email: "nobody@example.com",
        password: "correct horse battery",
      }),
    ).toBeNull();
    expect(await verifyCredentials(t.db, { email: 42 })).toBeNull();
  });
});

describe("invitations", () => {
  it("invites, shows, accepts once, and audits", async () => {
    const ws = await createWorkspaceFixture(t.db, "Inv");
    const inv = await createInvitation({
      ctx: ws.ctx("admin"),
      input: { email: "New.Person@example.com", role: "viewer" },
    });
    expect(inv.link).toContain("/invite/inv_");
    const shown = await getInvitation({ ctx: anon(), input: { token: inv.token } });
    expect(shown).toMatchObject({
      email: "new.person@example.com",
      role: "viewer",
      workspaceName: "Inv",
      status: "open",
      hasAccount: false,
    });

    const created = await signUp({
      ctx: anon(),
      input: {
        name: "New Person",
        email: "new.person@example.com",
        password: "0123456789ab",
        invitationToken: inv.token,
      },
    });
    expect(created.workspaceId).toBe(ws.workspaceId);
    const [m] = await t.db.select().from(memberships).where(eq(memberships.userId, created.userId));
    expect(m?.role).toBe("viewer");
    expect((await getInvitation({ ctx: anon(), input: { token: inv.token } })).status).toBe(
      "accepted",
    );
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.targetId, inv.id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "invitation.accepted",
      "invitation.created",
    ]);
  });

  it("refuses the wrong email, reuse, revoked and expired links", async () => {
    const ws = await createWorkspaceFixture(t.db, "Inv2");
    const inv = await createInvitation({
      ctx: ws.ctx("owner"),
      input: { email: "carol@example.com", role: "editor" },
    });
    const other = await createWorkspaceFixture(t.db, "Other");
    const wrongUser = makeCtx(t.db, { type: "user", userId: other.members.viewer });
    await expect(
      acceptInvitation({ ctx: wrongUser, input: { token: inv.token } }),
    ).rejects.toBeInstanceOf(ForbiddenError);

    const revoked = await createInvitation({
      ctx: ws.ctx("owner"),
      input: { email: "dan@example.com", role: "viewer" },
    });
    await revokeInvitation({ ctx: ws.ctx("admin"), input: { invitationId: revoked.id } });
    await expect(
      signUp({
        ctx: anon(),
        input: {
          name: "Dan",
          email: "dan@example.com",
          password: "0123456789ab",
          invitationToken: revoked.token,
        },
      }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);

    const later = makeCtx(t.db, { type: "anonymous" }, undefined, {
      now: () => new Date(Date.now() + 8 * 86_400_000),
    });
    await expect(
      signUp({
        ctx: later,
        input: {
          name: "Carol",
          email: "carol@example.com",
          password: "0123456789ab",
          invitationToken: inv.token,
        },
      }),
    ).rejects.toThrow(/expired/);

    await signUp({
      ctx: anon(),
      input: {
        name: "Carol",
        email: "carol@example.com",
        password: "0123456789ab",
        invitationToken: inv.token,
      },
    });
    await expect(
      acceptInvitation({ ctx: wrongUser, input: { token: inv.token } }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(
      getInvitation({ ctx: anon(), input: { token: "inv_doesnotexist0000" } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("keeps invitations within the inviter's role", async () => {
    const ws = await createWorkspaceFixture(t.db, "Inv3");
    await expect(
      createInvitation({ ctx: ws.ctx("admin"), input: { email: "x@example.com", role: "owner" } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      createInvitation({
        ctx: ws.ctx("editor"),
        input: { email: "x@example.com", role: "viewer" },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      createInvitation({ ctx: ws.ctx("admin"), input: { email: "", role: "viewer" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    const existing = await getMe({ ctx: ws.ctx("viewer") });
    await expect(
      createInvitation({
        ctx: ws.ctx("admin"),
        input: { email: existing.user.email, role: "viewer" },
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });
});

describe("members", () => {
  it("changes roles within the rules and always keeps an owner", async () => {
    const ws = await createWorkspaceFixture(t.db, "Mem");
    await expect(
      changeMemberRole({
        ctx: ws.ctx("admin"),
        input: { userId: ws.members.owner, role: "viewer" },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      changeMemberRole({
        ctx: ws.ctx("admin"),
        input: { userId: ws.members.viewer, role: "owner" },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(
      await changeMemberRole({
        ctx: ws.ctx("admin"),
        input: { userId: ws.members.viewer, role: "editor" },
      }),
    ).toMatchObject({ changed: true });
    await expect(
      changeMemberRole({
        ctx: ws.ctx("owner"),
        input: { userId: ws.members.owner, role: "admin" },
      }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(
      removeMember({ ctx: ws.ctx("owner"), input: { userId: ws.members.owner } }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(
      changeMemberRole({ ctx: ws.ctx("owner"), input: { userId: "usr_missing", role: "viewer" } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("lets members leave and admins remove, revoking the member's tokens", async () => {
    const ws = await createWorkspaceFixture(t.db, "Mem2");
    const tok = await createApiToken({
      ctx: ws.ctx("admin"),
      input: { name: "ci", role: "editor" },
    });
    expect(await authenticateApiToken(t.db, tok.token, new Date())).not.toBeNull();
    await removeMember({ ctx: ws.ctx("owner"), input: { userId: ws.members.admin } });
    expect(await authenticateApiToken(t.db, tok.token, new Date())).toBeNull();
    await removeMember({ ctx: ws.ctx("viewer"), input: { userId: ws.members.viewer } });
    await expect(
      removeMember({ ctx: ws.ctx("editor"), input: { userId: ws.members.approver } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe("API tokens", () => {
  it("shows the token once, authenticates it, caps its role, and stops it on revoke or expiry", async () => {
    const ws = await createWorkspaceFixture(t.db, "Tok");
    const created = await createApiToken({
      ctx: ws.ctx("admin"),
      input: { name: "agent", role: "editor", expiresInDays: 1 },
    });
    expect(created.token).toMatch(/^slu_[A-Za-z0-9_-]{43}$/);
    const listed = await listApiTokens({ ctx: ws.ctx("admin") });
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed[0]).toMatchObject({ status: "active", prefix: created.token.slice(0, 10) });

    const id = await authenticateApiToken(t.db, created.token, new Date());
    expect(id).toMatchObject({
      workspaceId: ws.workspaceId,
      role: "editor",
      userId: ws.members.admin,
    });
    expect(
      await authenticateApiToken(t.db, created.token.slice(0, -1) + "x", new Date()),
    ).toBeNull();
    expect(
      await authenticateApiToken(t.db, created.token, new Date(Date.now() + 2 * 86_400_000)),
    ).toBeNull();

    // The creator is demoted to viewer: the token's effective role follows.
    await changeMemberRole({
      ctx: ws.ctx("owner"),
      input: { userId: ws.members.admin, role: "viewer" },
    });
    expect((await authenticateApiToken(t.db, created.token, new Date()))?.role).toBe("viewer");

    await expect(
      createApiToken({ ctx: ws.ctx("owner"), input: { name: "", role: "viewer" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await revokeApiToken({ ctx: ws.ctx("owner"), input: { tokenId: created.id } });
    expect(await authenticateApiToken(t.db, created.token, new Date())).toBeNull();
    await expect(
      revokeApiToken({ ctx: ws.ctx("owner"), input: { tokenId: created.id } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
