import "server-only";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { env } from "@/env";
import { getAuthOptions } from "./auth/options";
import { contextFromSession } from "./context";
import { getSignUpMode } from "./services/auth/get-sign-up-mode";

/** Helpers for server components (pages and layouts). */
export async function getSession() {
  return getServerSession(getAuthOptions());
}

/** The signed-in page context, or a redirect to sign-in that comes back here. */
export async function requirePageContext(returnTo: string) {
  const ctx = await contextFromSession();
  if (ctx.actor.type !== "user") redirect(`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`);
  return ctx;
}

export async function authPageInfo() {
  const ctx = await contextFromSession();
  return {
    signedIn: ctx.actor.type === "user",
    signUpMode: await getSignUpMode({ ctx }),
    githubEnabled: Boolean(env.GITHUB_ID && env.GITHUB_SECRET),
  };
}
