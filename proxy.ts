import { NextResponse, type NextRequest } from "next/server";
import { env, publicUrl } from "@/env";
import {
  API_CSP,
  buildPageCsp,
  commonSecurityHeaders,
  generateNonce,
  isHttpsUrl,
} from "@/lib/security/headers";

const isHttps = isHttpsUrl(publicUrl(env));
const isDev = env.NODE_ENV === "development";
const COMMON = commonSecurityHeaders({ isHttps });

/**
 * Cheap gate in front of the dashboard: without a session cookie, go to sign-in and come back
 * afterwards. The real check (signature, membership, role) happens in the layout and in every
 * procedure; this only spares an anonymous visitor a server render.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];
const GATED = /^\/(workflows|runs|approvals|settings|account|operations)(\/|$)/;

/**
 * Every page, static file and unknown path gets the security headers here; pages also get a
 * nonce CSP. Next reads the nonce back from the request's CSP header and puts it on its own
 * scripts, which is why every page renders dynamically (app/layout.tsx).
 */
export function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  const isStatic = pathname.startsWith("/_next/static/");
  let res: NextResponse;
  let csp: string | undefined;
  if (GATED.test(pathname) && !SESSION_COOKIES.some((c) => req.cookies.has(c))) {
    const url = req.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = `?callbackUrl=${encodeURIComponent(pathname + search)}`;
    res = NextResponse.redirect(url);
    csp = API_CSP;
  } else if (isStatic) {
    // Chunks and worker scripts: a CSP on them would only restrict the workers Monaco starts.
    res = NextResponse.next();
  } else {
    csp = buildPageCsp({ nonce: generateNonce(), isDev, isHttps });
    const requestHeaders = new Headers(req.headers);
    requestHeaders.set("Content-Security-Policy", csp);
    res = NextResponse.next({ request: { headers: requestHeaders } });
  }
  for (const [k, v] of Object.entries(COMMON)) res.headers.set(k, v);
  if (csp) res.headers.set("Content-Security-Policy", csp);
  return res;
}

export const config = {
  // Everything but /api: a proxy that matches a route makes Next buffer the request body, so /api
  // routes set their own headers (server/http/security-headers.ts).
  matcher: ["/((?!api(?:/|$)).*)"],
};
