import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  interface Session {
    user: { id: string } & DefaultSession["user"];
    /** The workspace the user last switched to (validated against memberships on every request). */
    workspaceId?: string | null;
    /** The user_sessions row this browser signed in with (not a secret: the JWT is signed). */
    sessionId?: string;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    workspaceId?: string | null;
    /** user_sessions.id, checked on every request (server/auth/sessions.ts). */
    sid?: string;
  }
}
