import { describe, expect, it } from "vitest";
import { API_CSP, buildPageCsp, commonSecurityHeaders, generateNonce, isHttpsUrl } from "./headers";

/** `script-src 'self' 'nonce-x'` → { "script-src": ["'self'", "'nonce-x'"] } */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe("buildPageCsp", () => {
  const nonce = generateNonce();
  const prod = directives(buildPageCsp({ nonce, isDev: false, isHttps: false }));

  it("allows scripts by this request's nonce only, never inline or eval", () => {
    expect(prod["script-src"]).toContain(`'nonce-${nonce}'`);
    expect(prod["script-src"]).toContain("'strict-dynamic'");
    expect(prod["script-src"]).not.toContain("'unsafe-inline'");
    expect(prod["script-src"]).not.toContain("'unsafe-eval'");
  });

  it("allows eval only on the dev server", () => {
    const dev = directives(buildPageCsp({ nonce, isDev: true, isHttps: false }));
    expect(dev["script-src"]).toContain("'unsafe-eval'");
    expect(dev["script-src"]).not.toContain("'unsafe-inline'");
  });

  it("forbids framing, plugins and foreign base URLs", () => {
    expect(prod["frame-ancestors"]).toEqual(["'none'"]);
    expect(prod["object-src"]).toEqual(["'none'"]);
    expect(prod["base-uri"]).toEqual(["'self'"]);
  });

  it("lets Monaco start its workers and React Flow/Monaco set inline styles", () => {
    expect(prod["worker-src"]).toEqual(["'self'", "blob:"]);
    // A nonce in style-src would make browsers ignore 'unsafe-inline'.
    expect(prod["style-src"]).toEqual(["'self'", "'unsafe-inline'"]);
  });

  it("upgrades insecure requests only behind https", () => {
    expect(prod["upgrade-insecure-requests"]).toBeUndefined();
    const https = directives(buildPageCsp({ nonce, isDev: false, isHttps: true }));
    expect(https["upgrade-insecure-requests"]).toEqual([]);
  });
});

describe("generateNonce", () => {
  it("is fresh on every call and fits a CSP source expression", () => {
    const a = generateNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(generateNonce()).not.toBe(a);
  });
});

describe("commonSecurityHeaders", () => {
  it("sends nosniff, the referrer and permissions policies on http, without HSTS", () => {
    const h = commonSecurityHeaders({ isHttps: false });
    expect(h).toMatchObject({
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
      "X-Frame-Options": "DENY",
    });
    expect(h["Permissions-Policy"]).toContain("camera=()");
    expect(h["Strict-Transport-Security"]).toBeUndefined();
  });

  it("adds HSTS when the public URL is https", () => {
    expect(commonSecurityHeaders({ isHttps: true })["Strict-Transport-Security"]).toMatch(
      /^max-age=\d{7,}$/,
    );
  });

  it("decides https from the public URL's scheme", () => {
    expect(isHttpsUrl("https://sluice.example.com")).toBe(true);
    expect(isHttpsUrl("HTTPS://sluice.example.com")).toBe(true);
    expect(isHttpsUrl("http://localhost:3000")).toBe(false);
  });
});

describe("API_CSP", () => {
  it("allows nothing and no framing", () => {
    expect(directives(API_CSP)).toEqual({
      "default-src": ["'none'"],
      "frame-ancestors": ["'none'"],
    });
  });
});
