import "server-only";
import { parseThrottleErrorCode } from "@/lib/security/auth-throttle";

const CREDENTIALS_CALLBACK = /\/api\/auth\/callback\/credentials\/?$/;

/** The `error` parameter of next-auth's answer: its JSON `{ url }` or its redirect Location. */
function errorParam(location: string | null, body: string): string | null {
  let url = location;
  if (!url) {
    try {
      url = (JSON.parse(body) as { url?: unknown }).url as string | null;
    } catch {
      // Not JSON (an HTML error page): not ours to rewrite.
      return null;
    }
  }
  if (typeof url !== "string") return null;
  try {
    return new URL(url, "http://x").searchParams.get("error");
  } catch {
    return null;
  }
}

/**
 * next-auth answers a throttled credentials sign-in like any refused one (401 + the error in a
 * URL); this turns it into 429 with Retry-After, body and cookies unchanged, so the browser form
 * (next-auth/react reads the JSON whatever the status) and API clients both understand it.
 */
export function withSignInThrottleStatus<A extends [Request, ...unknown[]]>(
  handler: (...args: A) => Promise<Response>,
): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    const res = await handler(...args);
    const [req] = args;
    if (req.method !== "POST" || !CREDENTIALS_CALLBACK.test(new URL(req.url).pathname)) return res;
    if (res.status !== 401 && !(res.status >= 300 && res.status < 400)) return res;
    const body = await res.text();
    const seconds = parseThrottleErrorCode(errorParam(res.headers.get("location"), body));
    const headers = new Headers(res.headers);
    if (seconds === null) return new Response(body, { status: res.status, headers });
    headers.set("retry-after", String(seconds));
    headers.delete("location");
    return new Response(body, { status: 429, headers });
  };
}
