import NextAuth from "next-auth";
import { getAuthOptions } from "@/server/auth/options";
import { securedRoute } from "@/server/http/security-headers";
import { withSignInThrottleStatus } from "@/server/http/sign-in-throttle-response";

export const dynamic = "force-dynamic";

type RouteCtx = { params: Promise<{ nextauth: string[] }> };
// Options are built lazily (they need the derived session key, never available at build time).
const handler = securedRoute(
  withSignInThrottleStatus((req: Request, ctx: RouteCtx): Promise<Response> =>
    NextAuth(getAuthOptions())(req, ctx),
  ),
);

export { handler as GET, handler as POST };
