import NextAuth from "next-auth";
import { getAuthOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";

type RouteCtx = { params: Promise<{ nextauth: string[] }> };
// Options are built lazily (they need the derived session key, never available at build time).
const handler = (req: Request, ctx: RouteCtx) => NextAuth(getAuthOptions())(req, ctx);

export { handler as GET, handler as POST };
