import { NextResponse, type NextRequest } from "next/server";

/**
 * Cheap gate in front of the dashboard: without a session cookie, go to sign-in and come back
 * afterwards. The real check (signature, membership, role) happens in the layout and in every
 * procedure; this only spares an anonymous visitor a server render.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

export function proxy(req: NextRequest) {
  const hasSession = SESSION_COOKIES.some((c) => req.cookies.has(c));
  if (hasSession) return NextResponse.next();
  const url = req.nextUrl.clone();
  url.pathname = "/sign-in";
  url.search = `?callbackUrl=${encodeURIComponent(req.nextUrl.pathname + req.nextUrl.search)}`;
  return NextResponse.redirect(url);
}

export const config = {
  matcher: ["/workflows/:path*", "/runs/:path*", "/approvals/:path*", "/settings/:path*"],
};
