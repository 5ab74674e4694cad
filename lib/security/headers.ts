/**
 * The security headers every response carries (issue 17): one place that decides them, used by
 * proxy.ts for pages and static files and by server/http/security-headers.ts for every /api route.
 * Pure: callers pass whether the public URL is https and whether this is a dev server.
 */

export interface SecurityHeaderOptions {
  /** The public URL is https: add HSTS and upgrade-insecure-requests. */
  isHttps: boolean;
}

export interface PageCspOptions extends SecurityHeaderOptions {
  /** Fresh per request (generateNonce); Next.js reads it back from the request's CSP header. */
  nonce: string;
  /** `next dev` needs 'unsafe-eval' (React rebuilds server error stacks with eval). */
  isDev: boolean;
}

/** JSON, webhooks, MCP, Inngest: nothing in an API answer may load or run anything. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Browser features the app never uses. Only features Chromium recognises: an unknown name makes it
 * log a warning on every page. Clipboard stays allowed (Monaco copies and pastes).
 */
export const PERMISSIONS_POLICY =
  "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), midi=()";

/** Two years. No includeSubDomains: a self-hosted instance must not decide for sibling hosts. */
export const HSTS = "max-age=63072000";

export function isHttpsUrl(url: string): boolean {
  return url.toLowerCase().startsWith("https://");
}

/** 128 random bits, base64: unguessable and valid inside `'nonce-…'`. */
export function generateNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The page policy. Scripts: only those carrying this request's nonce, plus the chunks they load
 * ('strict-dynamic'); Monaco's workers are admitted by worker-src. No
 * 'unsafe-inline'. Styles allow 'unsafe-inline' on purpose: Monaco writes <style> elements at
 * runtime (themes, decorations) and React Flow positions nodes with style attributes, and neither
 * can carry a nonce. A nonce in style-src would switch 'unsafe-inline' off, so there is none.
 */
export function buildPageCsp({ nonce, isDev, isHttps }: PageCspOptions): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    // Monaco's workers come from our own chunks (or blob: wrappers of them, depending on bundler).
    "worker-src 'self' blob:",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(isHttps ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}

/** Headers every response gets, whatever it is (page, API answer, static file). */
export function commonSecurityHeaders({ isHttps }: SecurityHeaderOptions): Record<string, string> {
  return {
    "X-Content-Type-Options": "nosniff",
    // Approval and invitation links carry tokens in their path: never send the path elsewhere.
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": PERMISSIONS_POLICY,
    // The pre-CSP spelling of frame-ancestors 'none', for older browsers and scanners.
    "X-Frame-Options": "DENY",
    ...(isHttps ? { "Strict-Transport-Security": HSTS } : {}),
  };
}
