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
import { isSecuredRoute, withApiSecurityHeaders } from "@/server/http/security-headers";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { config as proxyConfig, proxy } from "@/proxy";
import * as apiCatchAll from "./[...path]/route";
import * as hooksRoute from "./hooks/[...path]/route";
import * as inngestRoute from "./inngest/route";
import * as mcpRoute from "./mcp/route";
import * as trpcRoute from "./trpc/[trpc]/route";
import * as v1CatchAll from "./v1/[...path]/route";
import * as v1Events from "./v1/events/route";
import * as v1Me from "./v1/me/route";
import * as v1Workflows from "./v1/workflows/route";

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

/** An /api route's answer: the API headers, and (issue 25) never cached — it is per caller. */
function expectRouteHeaders(res: Response) {
  expectApiHeaders(res);
  expect(res.headers.get("cache-control"), `cache-control on a ${res.status}`).toBe("no-store");
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
    expectRouteHeaders(res);
  });

  it("/api/v1 (a route, its 405, OPTIONS and the catch-all 404)", async () => {
    const me = await v1Me.GET(new Request("http://localhost/api/v1/me"), params({}));
    expect(me.status).toBe(401);
    expectRouteHeaders(me);
    const notAllowed = await v1Me.POST(
      new Request("http://localhost/api/v1/me", { method: "POST" }),
      params({}),
    );
    expect(notAllowed.status).toBe(405);
    expectRouteHeaders(notAllowed);
    expectRouteHeaders(await v1Me.OPTIONS(new Request("http://localhost/api/v1/me"), params({})));
    const missing = await v1CatchAll.GET(
      new Request("http://localhost/api/v1/nope"),
      params({ path: ["nope"] }),
    );
    expect(missing.status).toBe(404);
    expectRouteHeaders(missing);
  });

  it("/api/hooks", async () => {
    const res = await hooksRoute.POST(
      new Request("http://localhost/api/hooks/no/such/hook", { method: "POST", body: "{}" }),
      params({ path: ["no", "such", "hook"] }),
    );
    expect(res.status).toBe(404);
    expectRouteHeaders(res);
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
    expectRouteHeaders(res);
    expectRouteHeaders(await mcpRoute.GET());
  });

  it("/api/inngest", async () => {
    const res = await inngestRoute.GET(
      new NextRequest("http://localhost/api/inngest") as never,
      undefined as never,
    );
    expectRouteHeaders(res);
  });

  it("/api/v1, webhooks and MCP: no-store on successes and on every error (400, 413, 429)", async () => {
    const fx = await createWorkspaceFixture(t.db, "NoStore");
    const { token } = await createApiToken({
      ctx: fx.ctx("editor"),
      input: { name: "headers", role: "editor" },
    });
    const v1 = (
      route: { GET?: unknown; POST?: unknown },
      method: "GET" | "POST",
      path: string,
      init: { token?: string; body?: string; from?: string } = {},
    ) =>
      (route[method] as (req: Request, ctx: unknown) => Promise<Response>)(
        new Request(`http://localhost/api/v1/${path}`, {
          method,
          headers: {
            ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
            "content-type": "application/json",
            "x-forwarded-for": init.from ?? "192.0.2.10",
          },
          body: init.body,
        }),
        params({}),
      );
    const answers: Response[] = [
      await v1(v1Me, "GET", "me", { token }),
      await v1(v1Workflows, "POST", "workflows", { token, body: '{"name":5}' }),
      await v1(v1Events, "POST", "events", { token, body: "x".repeat(1024 * 1024 + 1) }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 413]);
    // 20 unknown tokens from one address, then 429.
    for (let i = 0; i < 20; i++)
      await v1(v1Me, "GET", "me", { token: `slu_x${i}`, from: "192.0.2.66" });
    const throttled = await v1(v1Me, "GET", "me", { token: "slu_y", from: "192.0.2.66" });
    expect(throttled.status).toBe(429);
    answers.push(throttled);

    const mcp = (authorization: string) =>
      mcpRoute.POST(
        new Request("http://localhost/api/mcp", {
          method: "POST",
          headers: {
            authorization,
            "x-forwarded-for": "192.0.2.66",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        }),
      );
    const mcpOk = await mcp(`Bearer ${token}`);
    const mcpThrottled = await mcp("Bearer slu_z");
    const mcpTooLarge = await mcpRoute.POST(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: "x".repeat(4 * 1024 * 1024 + 1),
      }),
    );
    expect([mcpOk.status, mcpThrottled.status, mcpTooLarge.status]).toEqual([200, 429, 413]);
    answers.push(mcpOk, mcpThrottled, mcpTooLarge);

    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Hooked" } });
    const hook = await createTrigger({
      ctx: fx.ctx("owner"),
      input: {
        kind: "webhook",
        workflowId: wf.id,
        name: "Hook",
        config: { verification: { preset: "none" }, idempotency: "none" },
      },
    });
    const deliver = (body: string) =>
      hooksRoute.POST(
        new Request(`http://localhost/api/hooks/${hook.trigger.path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
        params({ path: [hook.trigger.path!] }),
      );
    const accepted = await deliver("{}");
    const empty = await deliver("");
    expect([accepted.status, empty.status]).toEqual([202, 400]);
    answers.push(accepted, empty);
    for (const res of answers) expectRouteHeaders(res);
  });

  it("/api/mcp and /api/hooks answer every method themselves (Next's own 405/OPTIONS carry no headers)", async () => {
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
    const call = (mod: Record<string, unknown>, m: string, url: string, ctx?: unknown) =>
      (mod[m] as (req: Request, ctx: unknown) => Promise<Response>)(
        new Request(url, { method: m }),
        ctx,
      );
    for (const m of methods) {
      expect(typeof (mcpRoute as Record<string, unknown>)[m], `mcp ${m}`).toBe("function");
      expect(typeof (hooksRoute as Record<string, unknown>)[m], `hooks ${m}`).toBe("function");
      const mcp = await call(mcpRoute, m, "http://localhost/api/mcp");
      expectRouteHeaders(mcp);
      const hook = await call(
        hooksRoute,
        m,
        "http://localhost/api/hooks/nope",
        params({ path: ["nope"] }),
      );
      expect(hook.status, `hooks ${m}`).toBe(404);
      expectRouteHeaders(hook);
    }
    const options = await call(mcpRoute, "OPTIONS", "http://localhost/api/mcp");
    expect([options.status, options.headers.get("allow")]).toEqual([204, "OPTIONS, POST"]);
    expect((await call(mcpRoute, "PUT", "http://localhost/api/mcp")).status).toBe(405);
  });

  it("a handler's own no-store policy stays (the event stream's no-transform); any other is replaced", () => {
    const stream = withApiSecurityHeaders(
      new Response("", { headers: { "cache-control": "no-store, no-transform" } }),
    );
    expect(stream.headers.get("cache-control")).toBe("no-store, no-transform");
    const cached = withApiSecurityHeaders(
      new Response("", { headers: { "cache-control": "public, max-age=600" } }),
    );
    expect(cached.headers.get("cache-control")).toBe("no-store");
    // Immutable headers (Response.redirect) are copied first.
    expect(
      withApiSecurityHeaders(Response.redirect("http://localhost/x")).headers.get("cache-control"),
    ).toBe("no-store");
  });

  it("any other /api path: a JSON 404 with the headers, not Next's HTML page", async () => {
    const res = await apiCatchAll.GET(
      new Request("http://localhost/api/nope"),
      params({ path: ["nope"] }),
    );
    expect(res.status).toBe(404);
    expectRouteHeaders(res);
  });
});
