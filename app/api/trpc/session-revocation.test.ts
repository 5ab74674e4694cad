/**
 * Issue 17 item 3 at the route: a browser's session cookie stops working at /api/trpc as soon as
 * the session is revoked (well inside the per-process cache window), and a cookie from before
 * sessions were recorded (no `sid`) is signed out.
 */
import { encode, type JWT } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { getAuthOptions } from "@/server/auth/options";
import { createSession } from "@/server/services/sessions/create-session";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as trpcRoute from "./[trpc]/route";

let t: TestDb;
let fx: WorkspaceFixture;

beforeAll(async () => {
  t = await createTestDb("sessroute");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Route");
});
afterAll(async () => {
  await t?.close();
});

/** The cookie next-auth would have set for this token (plain http: the unprefixed name). */
async function cookieFor(token: JWT): Promise<string> {
  const jwt = await encode({ token, secret: getAuthOptions().secret! });
  return `next-auth.session-token=${jwt}`;
}

async function signedIn(userId: string) {
  const { sessionId } = await createSession({ ctx: fx.ctx("viewer"), input: { userId } });
  return {
    sessionId,
    cookie: await cookieFor({ sub: userId, sid: sessionId, workspaceId: fx.workspaceId }),
  };
}

const meGet = (cookie: string) =>
  trpcRoute.GET(new Request("http://localhost/api/trpc/me.get", { headers: { cookie } }));

describe("/api/trpc with a revoked session", () => {
  it("answers UNAUTHORIZED right after another browser revoked the session", async () => {
    const userId = fx.members.editor;
    const laptop = await signedIn(userId);
    const phone = await signedIn(userId);
    // Both work, and the phone's session is now in this process's cache.
    expect((await meGet(laptop.cookie)).status).toBe(200);
    expect((await meGet(phone.cookie)).status).toBe(200);

    const revoke = await trpcRoute.POST(
      new Request("http://localhost/api/trpc/session.revoke", {
        method: "POST",
        headers: { cookie: laptop.cookie, "content-type": "application/json" },
        body: JSON.stringify({ json: { sessionId: phone.sessionId } }),
      }),
    );
    expect(revoke.status, await revoke.clone().text()).toBe(200);

    const refused = await meGet(phone.cookie);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(await refused.json())).toContain("UNAUTHORIZED");
    expect((await meGet(laptop.cookie)).status).toBe(200);
  });

  it("cannot revoke another user's session through the route", async () => {
    const mine = await signedIn(fx.members.admin);
    const theirs = await signedIn(fx.members.owner);
    const res = await trpcRoute.POST(
      new Request("http://localhost/api/trpc/session.revoke", {
        method: "POST",
        headers: { cookie: mine.cookie, "content-type": "application/json" },
        body: JSON.stringify({ json: { sessionId: theirs.sessionId } }),
      }),
    );
    expect(res.status).toBe(404);
    expect((await meGet(theirs.cookie)).status).toBe(200);
  });

  it("treats a cookie without a session id (issued before sessions) as signed out", async () => {
    const legacy = await cookieFor({ sub: fx.members.viewer, workspaceId: fx.workspaceId });
    expect((await meGet(legacy)).status).toBe(401);
  });
});
