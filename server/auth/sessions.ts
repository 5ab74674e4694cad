import "server-only";
import type { JWT } from "next-auth/jwt";
import { headers } from "next/headers";
import { getDb } from "@/db";
import { requestClient } from "../http/client-address";
import type { ServiceContext } from "../services/context";
import { checkSession } from "../services/sessions/check-session";
import { createSession } from "../services/sessions/create-session";
import { signOutSession } from "../services/sessions/sign-out-session";
import { resolveWorkspace } from "../services/workspaces/resolve-workspace";

/**
 * Thrown from the jwt callback for a token whose session ended: next-auth then answers "no
 * session" (getServerSession → null) and, on /api/auth/session, clears the cookie.
 */
export class SessionEndedError extends Error {
  constructor() {
    super("The session was signed out");
    this.name = "SessionEndedError";
  }
}

type BaseCtx = Omit<ServiceContext, "actor" | "workspace">;

/** At sign-in (any provider; runs inside the /api/auth callback request): the JWT's `sid`. */
export async function openSession(base: BaseCtx, userId: string): Promise<string> {
  const ctx: ServiceContext = {
    ...base,
    actor: { type: "user", userId },
    client: requestClient(await headers()),
  };
  return (await createSession({ ctx, input: { userId } })).sessionId;
}

/**
 * On every request: a token without a session id (issued before sessions were recorded) or with
 * an ended one is refused, so such browsers sign in once more and get a revocable session.
 */
export async function assertSessionLive(token: JWT): Promise<void> {
  const ok =
    typeof token.sub === "string" &&
    typeof token.sid === "string" &&
    (await checkSession({
      ctx: { db: await getDb(), now: () => new Date() },
      input: { sessionId: token.sid, userId: token.sub },
    }));
  if (!ok) throw new SessionEndedError();
}

/** next-auth `events.signOut`: the session row ends with the cookie. */
export async function endSignedOutSession(base: BaseCtx, token: JWT | null): Promise<void> {
  if (typeof token?.sub !== "string" || typeof token.sid !== "string") return;
  const workspace = await resolveWorkspace(base.db, token.sub, token.workspaceId);
  await signOutSession({
    ctx: {
      ...base,
      actor: { type: "user", userId: token.sub, sessionId: token.sid },
      workspace: workspace ?? undefined,
    },
  });
}
