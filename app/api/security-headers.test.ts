/**
 * Issue 17: every route family answers with the security headers. Pages, static files and unknown
 * paths get them from the real proxy (proxy.ts, with its real matcher); every /api route handler
 * sets them itself (server/http/security-headers.ts), called here in-process with real requests.
 * e2e/specs/security-headers.spec.ts checks the same on the built server, in a browser, and also
 * /api/auth with its cookies (next-auth's handler needs a Next request scope, absent here).
 */
import fs from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { isSecuredRoute } from "@/server/http/security-headers";
import { config as proxyConfig, proxy } from "@/proxy";
import * as apiCatchAll from "./[...path]/route";
import * as hooksRoute from "./hooks/[...path]/route";
import * as inngestRoute from "./inngest/route";
import * as mcpRoute from "./mcp/route";
import * as trpcRoute from "./trpc/[trpc]/route";
import * as v1CatchAll from "./v1/[...path]/route";
import * as v1Me from "./v1/me/route";

const COMMON = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
};

function expectCommonHeaders(res: Response) {
  for (const [k, v] of Object.entries(COMMON)) expect(res.headers.get(k), k).toBe(v);
  expect(res.headers.get("permissions-policy")).toContain("camera=()");
  // The test environment's public URL is http://localhost: no HSTS (it is tested on the builder).
  expect(res.headers.get("strict-transport-security")).toBeNull();
}

function expectApiHeaders(res: Response) {
  expectCommonHeaders(res);
  expect(res.headers.get("content-security-policy")).toBe(
    "default-src 'none'; frame-ancestors 'none'",
  );
}

const params = <T>(p: T) => ({ params: Promise.resolve(p) });
const matches = (url: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url });

describe("proxy: pages and static files", () => {
  it("runs for every page and static file, and for no /api path (their bodies stay unbuffered)", () => {
    for (const url of [
      "/",
      "/sign-in",
      "/workflows/abc/edit",
      "/api-docs",
      "/approvals?token=x",
      "/_next/static/chunks/main.js",
      "/favicon.ico",
      "/no-such-page",
    ])
      expect(matches(url), url).toBe(true);
    for (const url of ["/api", "/api/trpc/x", "/api/v1/me", "/api/hooks/a/b", "/api/mcp"])
      expect(matches(url), url).toBe(false);
  });

  it("gives a page a fresh nonce CSP, on the response and on the request Next renders", () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const res = proxy(new NextRequest("http://localhost/sign-in"));
      expectCommonHeaders(res);
      const csp = res.headers.get("content-security-policy")!;
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      nonces.add(nonce!);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      // NextResponse.next({ request }) forwards overridden request headers this way.
      expect(res.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    }
    expect(nonces.size).toBe(2);
  });

  it("keeps the sign-in gate, with the headers on the redirect", () => {
    const res = proxy(new NextRequest("http://localhost/workflows/abc/edit"));
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toContain("/sign-in?callbackUrl=%2Fworkflows%2Fabc%2Fedit");
    expectApiHeaders(res);
    const signedIn = proxy(
      new NextRequest("http://localhost/workflows/abc/edit", {
        headers: { cookie: "next-auth.session-token=x" },
      }),
    );
    expect(signedIn.headers.get("location")).toBeNull();
    expect(signedIn.headers.get("content-security-policy")).toContain("'nonce-");
  });

  it("gives static files the headers without a CSP (it would only restrict Monaco's workers)", () => {
    const res = proxy(new NextRequest("http://localhost/_next/static/chunks/main.js"));
    expectCommonHeaders(res);
    expect(res.headers.get("content-security-policy")).toBeNull();
  });
});

describe("API route handlers", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb("secheaders");
    setProcessDb(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("wraps every exported method of every /api route file", async () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name === "route.ts") files.push(p);
      }
    };
    walk(path.resolve("app/api"));
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const mod = (await import(file)) as Record<string, unknown>;
      for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]) {
        if (mod[m] === undefined) continue;
        expect(isSecuredRoute(mod[m]), `${path.relative(process.cwd(), file)} ${m}`).toBe(true);
      }
    }
  });

  it("/api/trpc", async () => {
    const res = await trpcRoute.GET(new Request("http://localhost/api/trpc/workflows.list"));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expectApiHeaders(res);
  });

  it("/api/v1 (a route, its 405, OPTIONS and the catch-all 404)", async () => {
    const me = await v1Me.GET(new Request("http://localhost/api/v1/me"), params({}));
    expect(me.status).toBe(401);
    expectApiHeaders(me);
    const notAllowed = await v1Me.POST(
      new Request("http://localhost/api/v1/me", { method: "POST" }),
      params({}),
    );
    expect(notAllowed.status).toBe(405);
    expectApiHeaders(notAllowed);
    expectApiHeaders(await v1Me.OPTIONS(new Request("http://localhost/api/v1/me"), params({})));
    const missing = await v1CatchAll.GET(
      new Request("http://localhost/api/v1/nope"),
      params({ path: ["nope"] }),
    );
    expect(missing.status).toBe(404);
    expectApiHeaders(missing);
  });

  it("/api/hooks", async () => {
    const res = await hooksRoute.POST(
      new Request("http://localhost/api/hooks/no/such/hook", { method: "POST", body: "{}" }),
      params({ path: ["no", "such", "hook"] }),
    );
    expect(res.status).toBe(404);
    expectApiHeaders(res);
  });

  it("/api/mcp", async () => {
    const res = await mcpRoute.POST(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(res.status).toBe(401);
    expectApiHeaders(res);
    expectApiHeaders(await mcpRoute.GET());
  });

  it("/api/inngest", async () => {
    const res = await inngestRoute.GET(
      new NextRequest("http://localhost/api/inngest") as never,
      undefined as never,
    );
    expectApiHeaders(res);
  });

  it("any other /api path: a JSON 404 with the headers, not Next's HTML page", async () => {
    const res = await apiCatchAll.GET(
      new Request("http://localhost/api/nope"),
      params({ path: ["nope"] }),
    );
    expect(res.status).toBe(404);
    expectApiHeaders(res);
  });
});
