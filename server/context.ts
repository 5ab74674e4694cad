import "server-only";
import { getServerSession, type Session } from "next-auth";
import { headers } from "next/headers";
import { NextRequest } from "next/server";
import { getDb } from "@/db";
import { getAuthOptions } from "./auth/options";
import { requestClient } from "./http/client-address";
import { getRuntime } from "./runtime";
import { authenticateBearer } from "./services/api-tokens/authenticate-bearer";
import type { RequestClient, ServiceContext } from "./services/context";
import { resolveWorkspace } from "./services/workspaces/resolve-workspace";

/**
 * Builds the service context for a browser request from its next-auth session: of `req` when a
 * route handler passes it, else of the request Next is rendering.
 */
export async function contextFromSession(req?: Request): Promise<ServiceContext> {
  const rt = getRuntime();
  const db = await getDb();
  const session = req ? await getRequestSession(req) : await getServerSession(getAuthOptions());
  const userId = session?.user?.id;
  const base = {
    db,
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => new Date(),
    client: requestClient(req ? req.headers : await headers()),
  };
  if (!userId) return { ...base, actor: { type: "anonymous" } };
  // Until a required enrolment is done, the session acts in no workspace: only account-level
  // procedures (two-factor set-up, me) answer; every workspace procedure is refused.
  if (session.twoFactorEnrolRequired) return { ...base, actor: { type: "user", userId } };
  const workspace = await resolveWorkspace(db, userId, session.workspaceId);
  return { ...base, actor: { type: "user", userId, sessionId: session.sessionId }, workspace };
}

/**
 * Builds the service context for an API request from `Authorization: Bearer slu_…`; an unknown
 * token from a throttled client address gets TooManyAttemptsError (authenticate-bearer.ts).
 */
export async function contextFromBearer(
  authorization: string | null,
  client: RequestClient = { address: null, userAgent: null },
): Promise<ServiceContext> {
  const rt = getRuntime();
  const db = await getDb();
  const base = { db, keys: rt.keys, config: rt.config, log: rt.log, now: () => new Date(), client };
  const anonymous: ServiceContext = { ...base, actor: { type: "anonymous" } };
  const m = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  // A header that is not a bearer token at all still counts as a failed attempt.
  const presented = authorization ? (m?.[1] ?? authorization) : null;
  const identity = await authenticateBearer({ ctx: anonymous, input: presented });
  if (!identity) return anonymous;
  return {
    ...base,
    actor: { type: "token", tokenId: identity.tokenId, userId: identity.userId },
    workspace: { id: identity.workspaceId, role: identity.role },
  };
}

/**
 * The next-auth session of a fetch Request (route handlers), read from the request itself rather
 * than from Next's request scope, so the same path runs in-process in route tests.
 */
async function getRequestSession(req: Request): Promise<Session | null> {
  const cookies = Object.fromEntries(
    new NextRequest(req.url, { headers: req.headers }).cookies
      .getAll()
      .map((c) => [c.name, c.value]),
  );
  // Response cookies (a refreshed or cleared session cookie) are dropped: tRPC answers carry none,
  // and the browser's next /api/auth/session call refreshes or clears the cookie.
  const res = {
    getHeader: () => undefined,
    setHeader: () => undefined,
    setCookie: () => undefined,
  };
  return getServerSession(
    { headers: Object.fromEntries(req.headers), cookies } as never,
    res as never,
    getAuthOptions(),
  );
}
