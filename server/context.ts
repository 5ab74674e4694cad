import "server-only";
import { getServerSession, type Session } from "next-auth";
import { NextRequest } from "next/server";
import { getDb } from "@/db";
import { getAuthOptions } from "./auth/options";
import { getRuntime } from "./runtime";
import { authenticateApiToken } from "./services/api-tokens/authenticate-api-token";
import type { ServiceContext } from "./services/context";
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
  const base = { db, keys: rt.keys, config: rt.config, log: rt.log, now: () => new Date() };
  if (!userId) return { ...base, actor: { type: "anonymous" } };
  const workspace = await resolveWorkspace(db, userId, session.workspaceId);
  return { ...base, actor: { type: "user", userId, sessionId: session.sessionId }, workspace };
}

/** Builds the service context for an API request from `Authorization: Bearer slu_…`. */
export async function contextFromBearer(authorization: string | null): Promise<ServiceContext> {
  const rt = getRuntime();
  const db = await getDb();
  const base = { db, keys: rt.keys, config: rt.config, log: rt.log, now: () => new Date() };
  const m = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  const identity = await authenticateApiToken(db, m?.[1], new Date());
  if (!identity) return { ...base, actor: { type: "anonymous" } };
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
