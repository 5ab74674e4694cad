import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  interface Session {
    user: { id: string } & DefaultSession["user"];
    /** The workspace the user last switched to (validated against memberships on every request). */
    workspaceId?: string | null;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    workspaceId?: string | null;
  }
}
