import "server-only";
import { getServerSession } from "next-auth";
import { getDb } from "@/db";
import { getAuthOptions } from "./auth/options";
import { getRuntime } from "./runtime";
import { authenticateApiToken } from "./services/api-tokens/authenticate-api-token";
import type { ServiceContext } from "./services/context";
import { resolveWorkspace } from "./services/workspaces/resolve-workspace";

/** Builds the service context for a browser request from its next-auth session. */
export async function contextFromSession(): Promise<ServiceContext> {
  const rt = getRuntime();
  const db = await getDb();
  const session = await getServerSession(getAuthOptions());
  const userId = session?.user?.id;
  const base = { db, keys: rt.keys, config: rt.config, log: rt.log, now: () => new Date() };
  if (!userId) return { ...base, actor: { type: "anonymous" } };
  // Until a required enrolment is done, the session acts in no workspace: only account-level
  // procedures (two-factor set-up, me) answer; every workspace procedure is refused.
  if (session.twoFactorEnrolRequired) return { ...base, actor: { type: "user", userId } };
  const workspace = await resolveWorkspace(db, userId, session.workspaceId);
  return { ...base, actor: { type: "user", userId }, workspace };
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
