import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { auditEvents, memberships, users, userSessions } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { assertSessionLive, SessionEndedError } from "../../auth/sessions";
import { hashPassword, verifyPassword } from "../../auth/password";
import { ForbiddenError, NotFoundError, ValidationError } from "../../errors";
import { createWorkspaceFixture, makeCtx, type WorkspaceFixture } from "../../testing/harness";
import type { ServiceContext } from "../context";
import { changePassword } from "../me/change-password";
import { removeMember } from "../members/remove-member";
import { checkSession, SessionChecker, TOUCH_EVERY_MS } from "./check-session";
import { createSession } from "./create-session";
import { listSessions } from "./list-sessions";
import { pruneSessions } from "./prune-sessions";
import { revokeAllSessions } from "./revoke-all-sessions";
import { revokeSession } from "./revoke-session";
import { signOutSession } from "./sign-out-session";

let t: TestDb;
let fx: WorkspaceFixture;

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/** A signed-in browser of `userId`: opens a session row the way the jwt callback does. */
async function signIn(userId: string, userAgent = CHROME_MAC, at = new Date()) {
  const ctx = makeCtx(t.db, { type: "user", userId }, undefined, {
    client: { address: "203.0.113.7", userAgent },
    now: () => at,
  });
  const { sessionId } = await createSession({ ctx, input: { userId } });
  const as: ServiceContext = makeCtx(t.db, { type: "user", userId, sessionId }, ctx.workspace);
  return { sessionId, ctx: as };
}

/** The fixture member's context, carrying a browser session. */
async function member(role: "owner" | "admin" | "viewer" | "editor" = "viewer") {
  const userId = fx.members[role];
  const s = await signIn(userId);
  return { userId, sessionId: s.sessionId, ctx: { ...fx.ctx(role), actor: s.ctx.actor } };
}

const isLive = (sessionId: string, userId: string, checker = new SessionChecker({ ttlMs: 0 })) =>
  checkSession({ ctx: { db: t.db, now: () => new Date() }, input: { sessionId, userId }, checker });

async function auditActions(targetId: string) {
  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.targetId, targetId));
  return rows.map((r) => r.action);
}

beforeAll(async () => {
  t = await createTestDb("sessions");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Sess");
});
afterAll(async () => {
  await t?.close();
});

describe("sessions", () => {
  it("a sign-in records the client and lists only the user's own sessions, this one marked", async () => {
    const me = await member("editor");
    await signIn(me.userId, FIREFOX_LINUX);
    const stranger = await signIn(fx.members.admin);
    const list = await listSessions({ ctx: me.ctx });
    expect(list).toHaveLength(2);
    expect(list.map((s) => s.id)).not.toContain(stranger.sessionId);
    const current = list.find((s) => s.isCurrent)!;
    expect(current.id).toBe(me.sessionId);
    expect(current.client).toEqual({
      summary: "Chrome 131 on macOS Catalina",
      address: "203.0.113.7",
    });
    expect(list.find((s) => !s.isCurrent)!.client.summary).toBe("Firefox 133 on Linux");
  });

  it("revokes an own session; another user's session id is not found and stays live", async () => {
    const me = await member("owner");
    const other = await signIn(me.userId, FIREFOX_LINUX);
    const victim = await signIn(fx.members.admin);
    await expect(
      revokeSession({ ctx: me.ctx, input: { sessionId: victim.sessionId } }),
    ).rejects.toThrow(NotFoundError);
    expect(await isLive(victim.sessionId, fx.members.admin)).toBe(true);

    await revokeSession({ ctx: me.ctx, input: { sessionId: other.sessionId } });
    expect(await isLive(other.sessionId, me.userId)).toBe(false);
    expect(await isLive(me.sessionId, me.userId)).toBe(true);
    expect(await auditActions(other.sessionId)).toEqual(["session.revoke"]);
    // Twice: the second time there is nothing left to revoke.
    await expect(
      revokeSession({ ctx: me.ctx, input: { sessionId: other.sessionId } }),
    ).rejects.toThrow(NotFoundError);
    const [row] = await t.db
      .select()
      .from(userSessions)
      .where(eq(userSessions.id, other.sessionId));
    expect(row!.revokedReason).toBe("revoked");
  });

  it("a session is only good for the user it was opened for", async () => {
    const s = await signIn(fx.members.viewer);
    expect(await isLive(s.sessionId, fx.members.viewer)).toBe(true);
    expect(await isLive(s.sessionId, fx.members.owner)).toBe(false);
    expect(await isLive("ses_unknown", fx.members.viewer)).toBe(false);
  });

  it("a revoked session is refused once the cache window has passed", async () => {
    const s = await signIn(fx.members.viewer);
    // Another process's view: its own cache, its own clock.
    const elsewhere = new SessionChecker({ ttlMs: 2_000 });
    let clock = Date.now();
    const check = () =>
      checkSession({
        ctx: { db: t.db, now: () => new Date(clock) },
        input: { sessionId: s.sessionId, userId: fx.members.viewer },
        checker: elsewhere,
      });
    expect(await check()).toBe(true);
    await revokeSession({ ctx: s.ctx, input: { sessionId: s.sessionId } });
    clock += 1_000;
    expect(await check()).toBe(true); // still inside the window: the cached answer
    clock += 1_001;
    expect(await check()).toBe(false);
  });

  it("moves last seen at most once a minute", async () => {
    const start = new Date(Date.now() - 10 * 60_000);
    const s = await signIn(fx.members.editor, CHROME_MAC, start);
    const checker = new SessionChecker({ ttlMs: 0 });
    const seen = async () =>
      (await t.db.select().from(userSessions).where(eq(userSessions.id, s.sessionId)))[0]!
        .lastSeenAt;
    const at = (ms: number) =>
      checkSession({
        ctx: { db: t.db, now: () => new Date(start.getTime() + ms) },
        input: { sessionId: s.sessionId, userId: fx.members.editor },
        checker,
      });
    await at(TOUCH_EVERY_MS - 1);
    expect(await seen()).toEqual(start);
    await at(TOUCH_EVERY_MS);
    expect(await seen()).toEqual(new Date(start.getTime() + TOUCH_EVERY_MS));
    await at(TOUCH_EVERY_MS + 30_000);
    expect(await seen()).toEqual(new Date(start.getTime() + TOUCH_EVERY_MS));
  });

  it("sign out everywhere else keeps this session; everywhere ends it too", async () => {
    const me = await member("admin");
    const a = await signIn(me.userId);
    const b = await signIn(me.userId);
    const bystander = await signIn(fx.members.owner);
    expect(await revokeAllSessions({ ctx: me.ctx, input: { exceptCurrent: true } })).toEqual({
      revoked: expect.any(Number),
    });
    expect(await isLive(a.sessionId, me.userId)).toBe(false);
    expect(await isLive(b.sessionId, me.userId)).toBe(false);
    expect(await isLive(me.sessionId, me.userId)).toBe(true);
    expect(await isLive(bystander.sessionId, fx.members.owner)).toBe(true);
    await revokeAllSessions({ ctx: me.ctx, input: { exceptCurrent: false } });
    expect(await isLive(me.sessionId, me.userId)).toBe(false);
    expect(await auditActions(me.userId)).toContain("session.revoke_all");
  });

  it("sign-out ends the session it came from", async () => {
    const s = await signIn(fx.members.viewer);
    await signOutSession({ ctx: s.ctx });
    expect(await isLive(s.sessionId, fx.members.viewer)).toBe(false);
  });

  it("API tokens cannot list or end sessions, or change the password", async () => {
    const token = makeCtx(t.db, { type: "token", tokenId: "tok_x", userId: fx.members.owner });
    await expect(listSessions({ ctx: token })).rejects.toThrow(ForbiddenError);
    await expect(
      revokeAllSessions({ ctx: token, input: { exceptCurrent: false } }),
    ).rejects.toThrow(ForbiddenError);
    await expect(
      changePassword({ ctx: token, input: { currentPassword: "x", newPassword: "y".repeat(12) } }),
    ).rejects.toThrow(ForbiddenError);
  });

  it("a password change signs out every other session, not this one", async () => {
    const userId = await fx.addMember("editor");
    await t.db
      .update(users)
      .set({ passwordHash: await hashPassword("old-password-123") })
      .where(eq(users.id, userId));
    const here = await signIn(userId);
    const there = await signIn(userId, FIREFOX_LINUX);
    await expect(
      changePassword({
        ctx: here.ctx,
        input: { currentPassword: "wrong-password", newPassword: "new-password-456" },
      }),
    ).rejects.toThrow(ValidationError);
    await expect(
      changePassword({
        ctx: here.ctx,
        input: { currentPassword: "old-password-123", newPassword: "short" },
      }),
    ).rejects.toThrow(/at least 10 characters/);
    expect(await isLive(there.sessionId, userId)).toBe(true);

    expect(
      await changePassword({
        ctx: here.ctx,
        input: { currentPassword: "old-password-123", newPassword: "new-password-456" },
      }),
    ).toEqual({ revokedSessions: 1 });
    expect(await isLive(there.sessionId, userId)).toBe(false);
    expect(await isLive(here.sessionId, userId)).toBe(true);
    const [u] = await t.db.select().from(users).where(eq(users.id, userId));
    expect(await verifyPassword("new-password-456", u!.passwordHash!)).toBe(true);
    expect(await auditActions(userId)).toContain("user.password_change");
  });

  it("removal from the last workspace signs the person out; from one of two it does not", async () => {
    const userId = await fx.addMember("viewer");
    const second = await createWorkspaceFixture(t.db, "Second");
    await t.db
      .insert(memberships)
      .values({ workspaceId: second.workspaceId, userId, role: "viewer" });
    const s = await signIn(userId);

    await removeMember({ ctx: second.ctx("admin"), input: { userId } });
    expect(await isLive(s.sessionId, userId)).toBe(true);

    await removeMember({ ctx: fx.ctx("admin"), input: { userId } });
    expect(await isLive(s.sessionId, userId)).toBe(false);
    const [row] = await t.db.select().from(userSessions).where(eq(userSessions.id, s.sessionId));
    expect(row!.revokedReason).toBe("removed_from_workspaces");
    const audit = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, userId), eq(auditEvents.action, "session.revoke_all")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.workspaceId).toBe(fx.workspaceId);
  });

  it("leaving one's last workspace oneself keeps the session", async () => {
    const userId = await fx.addMember("viewer");
    const s = await signIn(userId);
    await removeMember({
      ctx: makeCtx(
        t.db,
        { type: "user", userId, sessionId: s.sessionId },
        {
          id: fx.workspaceId,
          role: "viewer",
        },
      ),
      input: { userId },
    });
    expect(await isLive(s.sessionId, userId)).toBe(true);
  });

  it("tokens from before sessions existed (no sid) and ended sessions are signed out", async () => {
    const s = await signIn(fx.members.viewer);
    await expect(assertSessionLive({ sub: fx.members.viewer })).rejects.toThrow(SessionEndedError);
    await expect(
      assertSessionLive({ sub: fx.members.viewer, sid: s.sessionId }),
    ).resolves.toBeUndefined();
    await revokeSession({ ctx: s.ctx, input: { sessionId: s.sessionId } });
    // Revoked in this process: the process-wide cache forgot it at once.
    await expect(assertSessionLive({ sub: fx.members.viewer, sid: s.sessionId })).rejects.toThrow(
      SessionEndedError,
    );
  });

  it("retention drops sessions unused for the JWT lifetime or revoked that long ago", async () => {
    const day = 86_400_000;
    const now = Date.now();
    const stale = await signIn(fx.members.approver, CHROME_MAC, new Date(now - 40 * day));
    const fresh = await signIn(fx.members.approver, CHROME_MAC, new Date(now - 2 * day));
    const revokedLongAgo = await signIn(fx.members.approver, CHROME_MAC, new Date(now - 2 * day));
    await t.db
      .update(userSessions)
      .set({ revokedAt: new Date(now - 40 * day), revokedReason: "sign_out" })
      .where(eq(userSessions.id, revokedLongAgo.sessionId));
    expect(await pruneSessions(t.db, new Date(now))).toBeGreaterThanOrEqual(2);
    const left = (await t.db.select({ id: userSessions.id }).from(userSessions)).map((r) => r.id);
    expect(left).toContain(fresh.sessionId);
    expect(left).not.toContain(stale.sessionId);
    expect(left).not.toContain(revokedLongAgo.sessionId);
    // A pruned session is simply signed out.
    expect(await isLive(stale.sessionId, fx.members.approver)).toBe(false);
  });
});
