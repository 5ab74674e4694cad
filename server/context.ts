import "server-only";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { getDb } from "@/db";
import { getAuthOptions } from "./auth/options";
import { requestClient } from "./http/client-address";
import { getRuntime } from "./runtime";
import { authenticateBearer } from "./services/api-tokens/authenticate-bearer";
import type { RequestClient, ServiceContext } from "./services/context";
import { resolveWorkspace } from "./services/workspaces/resolve-workspace";

/** Builds the service context for a browser request from its next-auth session. */
export async function contextFromSession(): Promise<ServiceContext> {
  const rt = getRuntime();
  const db = await getDb();
  const session = await getServerSession(getAuthOptions());
  const userId = session?.user?.id;
  const base = {
    db,
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => new Date(),
    client: requestClient(await headers()),
  };
  if (!userId) return { ...base, actor: { type: "anonymous" } };
  const workspace = await resolveWorkspace(db, userId, session.workspaceId);
  return { ...base, actor: { type: "user", userId }, workspace };
}

/**
 * Builds the service context for an API request from `Authorization: Bearer slu_…`; a throttled
 * client address gets TooManyAttemptsError (authenticate-bearer.ts).
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
