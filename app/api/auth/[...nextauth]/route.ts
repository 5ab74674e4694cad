import NextAuth from "next-auth";
import { getAuthOptions } from "@/server/auth/options";
import { securedRoute } from "@/server/http/security-headers";

export const dynamic = "force-dynamic";

type RouteCtx = { params: Promise<{ nextauth: string[] }> };
// Options are built lazily (they need the derived session key, never available at build time).
const handler = securedRoute((req: Request, ctx: RouteCtx): Promise<Response> =>
  NextAuth(getAuthOptions())(req, ctx),
);

export { handler as GET, handler as POST };
