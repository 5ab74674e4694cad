import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { headers } from "next/headers";
import { getDb } from "@/db";
import { env, publicUrl } from "@/env";
import { isHttpsUrl } from "@/lib/security/headers";
import { getRuntime } from "../runtime";
import { DomainError, TooManyAttemptsError } from "../errors";
import { throttleErrorCode } from "@/lib/security/auth-throttle";
import { requestClient } from "../http/client-address";
import type { RequestClient } from "../services/context";
import { signInWithPassword } from "../services/auth/sign-in-with-password";
import { signInWithOAuth } from "../services/auth/sign-in-with-oauth";
import { needsTwoFactorEnrolment } from "../services/two-factor/needs-two-factor-enrolment";
import { resolveWorkspace } from "../services/workspaces/resolve-workspace";
import { SESSION_MAX_AGE_SECONDS } from "../services/sessions/own-sessions";
import { assertSessionLive, endSignedOutSession, openSession, SessionEndedError } from "./sessions";

let cached: NextAuthOptions | undefined;

/** next-auth configuration: email + password always, GitHub when GITHUB_ID/SECRET are set. */
export function getAuthOptions(): NextAuthOptions {
  if (cached) return cached;
  const rt = getRuntime();
  // The client is read from next/headers unless given (authorize() gets next-auth's copy).
  const serviceCtx = async (client?: RequestClient) => ({
    db: await getDb(),
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => new Date(),
    actor: { type: "system" as const, name: "auth" },
    client: client ?? requestClient(await headers()),
  });

  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
        /** The second step, for users with two-factor: an authenticator or recovery code. */
        code: { label: "Code", type: "text" },
      },
      async authorize(credentials, req) {
        const ctx = await serviceCtx(requestClient(req.headers ?? {}));
        try {
          // Throws SecondFactorError (message two_factor_required / two_factor_invalid), which
          // next-auth passes to the sign-in form as `error`.
          const user = await signInWithPassword({ ctx, input: credentials });
          if (!user) rt.log.info("sign-in refused", { reason: "bad_credentials" });
          return user;
        } catch (e) {
          // next-auth hands the message to the client; the route turns it into 429 + Retry-After.
          if (e instanceof TooManyAttemptsError)
            throw new Error(throttleErrorCode(e.retryAfterSeconds));
          throw e;
        }
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
      async jwt({ token, user, account, trigger, session }) {
        if (user) {
          token.sub = user.id;
          token.workspaceId = (await resolveWorkspace(await getDb(), user.id))?.id ?? null;
          token.sid = await openSession(await serviceCtx(), user.id);
          // Decided at sign-in (OAuth sign-ins are exempt); cleared by an update after enrolment.
          token.twoFactorEnrolRequired =
            account?.provider === "credentials" &&
            (await needsTwoFactorEnrolment(await getDb(), user.id));
        } else {
          await assertSessionLive(token);
        }
        if (trigger === "update" && token.sub && token.twoFactorEnrolRequired)
          token.twoFactorEnrolRequired = await needsTwoFactorEnrolment(await getDb(), token.sub);
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
        session.twoFactorEnrolRequired = token.twoFactorEnrolRequired === true;
        return session;
      },
    },
    events: {
      signOut: async ({ token }) => endSignedOutSession(await serviceCtx(), token),
    },
  };
  return cached;
}
