import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { getDb } from "@/db";
import { env, publicUrl } from "@/env";
import { isHttpsUrl } from "@/lib/security/headers";
import { getRuntime } from "../runtime";
import { DomainError } from "../errors";
import { verifyCredentials } from "../services/auth/verify-credentials";
import { signInWithOAuth } from "../services/auth/sign-in-with-oauth";
import { resolveWorkspace } from "../services/workspaces/resolve-workspace";
import { SESSION_MAX_AGE_SECONDS } from "../services/sessions/own-sessions";
import { assertSessionLive, endSignedOutSession, openSession, SessionEndedError } from "./sessions";

let cached: NextAuthOptions | undefined;

/** next-auth configuration: email + password always, GitHub when GITHUB_ID/SECRET are set. */
export function getAuthOptions(): NextAuthOptions {
  if (cached) return cached;
  const rt = getRuntime();
  const serviceCtx = async () => ({
    db: await getDb(),
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => new Date(),
    actor: { type: "system" as const, name: "auth" },
  });

  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials) {
        const user = await verifyCredentials(await getDb(), credentials);
        if (!user) rt.log.info("sign-in refused", { reason: "bad_credentials" });
        return user;
      },
    }),
  ];
  if (env.GITHUB_ID && env.GITHUB_SECRET) {
    providers.push(GitHubProvider({ clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET }));
  }

  cached = {
    secret: rt.keys.derive("session").toString("hex"),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // Secure cookies with __Secure-/__Host- names only behind https (a browser drops Secure
    // cookies on plain http). next-auth's defaults are already HttpOnly and SameSite=Lax.
    useSecureCookies: isHttpsUrl(publicUrl(env)),
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers,
    logger: {
      error: (code, metadata) =>
        // A revoked or pre-sessions cookie is a normal "signed out", not a fault.
        metadata instanceof SessionEndedError
          ? rt.log.debug("session ended", { code })
          : rt.log.error("next-auth error", {
              code,
              // Only the error: next-auth's metadata can carry what was posted (credentials, emails).
              err: metadata instanceof Error ? metadata : (metadata as { error?: unknown })?.error,
            }),
      warn: (code) => rt.log.warn("next-auth warning", { code }),
      debug: () => {},
    },
    callbacks: {
      async signIn({ user, account }) {
        if (!account || account.provider === "credentials") return true;
        try {
          const { userId } = await signInWithOAuth({
            ctx: await serviceCtx(),
            input: {
              provider: account.provider,
              providerAccountId: account.providerAccountId,
              email: user.email,
              name: user.name,
            },
          });
          // Carried to the jwt callback below, which runs in the same request.
          user.id = userId;
          return true;
        } catch (e) {
          if (e instanceof DomainError) return `/sign-in?error=${encodeURIComponent(e.message)}`;
          throw e;
        }
      },
      async jwt({ token, user, trigger, session }) {
        if (user) {
          token.sub = user.id;
          token.workspaceId = (await resolveWorkspace(await getDb(), user.id))?.id ?? null;
          token.sid = await openSession(await serviceCtx(), user.id);
        } else {
          await assertSessionLive(token);
        }
        if (trigger === "update" && token.sub) {
          const wanted = (session as { workspaceId?: unknown } | undefined)?.workspaceId;
          if (typeof wanted === "string") {
            const ws = await resolveWorkspace(await getDb(), token.sub, wanted);
            // Only switch to a workspace the user really belongs to.
            if (ws?.id === wanted) token.workspaceId = wanted;
          }
        }
        return token;
      },
      async session({ session, token }) {
        session.user = { ...session.user, id: token.sub! };
        session.workspaceId = token.workspaceId ?? null;
        session.sessionId = token.sid;
        return session;
      },
    },
    events: {
      signOut: async ({ token }) => endSignedOutSession(await serviceCtx(), token),
    },
  };
  return cached;
}
