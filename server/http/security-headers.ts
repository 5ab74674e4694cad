import "server-only";
import { env, publicUrl } from "@/env";
import { API_CSP, commonSecurityHeaders, isHttpsUrl } from "@/lib/security/headers";

/**
 * /api answers get their security headers here rather than in proxy.ts: a proxy that matches a
 * route makes Next buffer the whole request body first (truncating it past 10 MB), which would
 * undo the streaming body caps of webhooks, /api/v1 and the Inngest endpoint.
 */
const headers = { ...commonSecurityHeaders({ isHttps: isHttpsUrl(publicUrl(env)) }) };
headers["Content-Security-Policy"] = API_CSP;

/**
 * API answers are per caller and per moment (a run's state, a token's 401, a webhook's verdict):
 * no browser or shared cache may keep one. A handler's own policy stays when it already says
 * no-store (the event stream's `no-store, no-transform`).
 */
function setHeaders(h: Headers): void {
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  if (!/\bno-store\b/i.test(h.get("cache-control") ?? "")) h.set("Cache-Control", "no-store");
}

/** Sets the API security headers on a response, copying it first when its headers are immutable. */
export function withApiSecurityHeaders(res: Response): Response {
  let out = res;
  try {
    setHeaders(out.headers);
  } catch (e) {
    // Response.redirect() and fetched responses have immutable headers: copy into a fresh one.
    if (!(e instanceof TypeError)) throw e;
    out = new Response(res.body, res);
    setHeaders(out.headers);
  }
  return out;
}

const secured = new WeakSet<object>();

/** Wraps a route handler so every answer it gives (errors included) carries the API headers. */
export function securedRoute<A extends unknown[]>(
  handler: (...args: A) => Response | Promise<Response>,
): (...args: A) => Promise<Response> {
  const wrapped = async (...args: A) => withApiSecurityHeaders(await handler(...args));
  secured.add(wrapped);
  return wrapped;
}

/** For the test that checks every exported method of every /api route file is wrapped. */
export function isSecuredRoute(handler: unknown): boolean {
  return typeof handler === "function" && secured.has(handler);
}
