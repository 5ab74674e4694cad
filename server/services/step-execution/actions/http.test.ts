import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { HttpConfig } from "@/lib/workflow/steps";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { httpHandler } from "./http";
import { failureOf, makeActionContext } from "./testing";

let server: LocalServer;
const allowLocal = {
  scriptStepsEnabled: false,
  allowedPrivateHosts: ["127.0.0.1"],
  forbiddenStepTypes: [],
};
const ctxFor = (config: z.input<typeof HttpConfig>, overrides = {}) =>
  makeActionContext(HttpConfig, config, { policy: allowLocal, ...overrides });

beforeAll(async () => {
  server = await startHttpServer(async (req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/json":
        return sendJson(res, 200, { hello: "world", n: 1 }, { "x-extra": "yes" });
      case "/echo":
        return sendJson(res, 201, {
          method: req.method,
          query: Object.fromEntries(url.searchParams),
          body,
          type: req.headers["content-type"] ?? null,
        });
      case "/text":
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        return res.end("plain text ✓");
      case "/binary":
        res.writeHead(200, { "content-type": "image/png" });
        return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]));
      case "/bad-json":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("{not json");
      case "/rate-limited":
        return sendJson(res, 429, { error: "slow down" }, { "retry-after": "3" });
      case "/rate-limited-date":
        return sendJson(
          res,
          429,
          {},
          { "retry-after": new Date(Date.now() + 60_000).toUTCString() },
        );
      case "/unavailable":
        return sendJson(res, 503, { error: "maintenance" });
      case "/boom":
        res.writeHead(500, { "content-type": "text/plain" });
        return res.end("internal kaboom");
      case "/missing":
        res.writeHead(404, { "content-type": "text/plain" });
        return res.end("no such thing here " + "z".repeat(2000));
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("x".repeat(10_000));
      case "/slow":
        await new Promise((r) => setTimeout(r, 3000));
        return sendJson(res, 200, {});
      default:
        return sendJson(res, 404, {});
    }
  });
});
afterAll(() => server?.close());

describe("http step", () => {
  it("parses JSON responses and returns status, headers and body", async () => {
    const out = await httpHandler(ctxFor({ url: `${server.origin}/json` }));
    expect(out.data).toMatchObject({ status: 200, body: { hello: "world", n: 1 } });
    expect((out.data as { headers: Record<string, string> }).headers["x-extra"]).toBe("yes");
    expect(out.meta).toMatchObject({ method: "GET", url: `${server.origin}/json` });
  });

  it("returns text, base64 for binary, and the raw text of invalid JSON with a note", async () => {
    expect((await httpHandler(ctxFor({ url: `${server.origin}/text` }))).data).toMatchObject({
      body: "plain text ✓",
    });
    const bin = await httpHandler(ctxFor({ url: `${server.origin}/binary` }));
    expect(bin.data).toMatchObject({
      body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]).toString("base64"),
    });
    expect(bin.meta?.bodyEncoding).toBe("base64");
    const bad = await httpHandler(ctxFor({ url: `${server.origin}/bad-json` }));
    expect(bad.data).toMatchObject({ body: "{not json" });
    expect(bad.meta?.bodyParseError).toMatch(/Invalid JSON/);
  });

  it("sends headers, query parameters and JSON, text or form bodies", async () => {
    const json = await httpHandler(
      ctxFor({
        method: "POST",
        url: `${server.origin}/echo?fixed=1`,
        query: { q: "a b", n: 2, flag: true },
        headers: { "X-Custom": "v1" },
        body: { a: [1, 2] },
      }),
    );
    expect(json.data).toMatchObject({
      status: 201,
      body: {
        method: "POST",
        query: { fixed: "1", q: "a b", n: "2", flag: "true" },
        body: '{"a":[1,2]}',
        type: "application/json",
      },
    });
    expect(server.requests.at(-1)?.headers["x-custom"]).toBe("v1");
    const text = await httpHandler(
      ctxFor({ method: "PUT", url: `${server.origin}/echo`, body: "raw text" }),
    );
    expect(text.data).toMatchObject({
      body: { body: "raw text", type: "text/plain; charset=utf-8" },
    });
    const form = await httpHandler(
      ctxFor({
        method: "POST",
        url: `${server.origin}/echo`,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: { a: "1 2", b: "x&y" },
      }),
    );
    expect(form.data).toMatchObject({ body: { body: "a=1+2&b=x%26y" } });
  });

  it("sends a stable Idempotency-Key unless the config sets one", async () => {
    await httpHandler(ctxFor({ method: "POST", url: `${server.origin}/echo`, body: {} }));
    await httpHandler(ctxFor({ method: "POST", url: `${server.origin}/echo`, body: {} }));
    const [a, b] = server.requests.slice(-2);
    expect(a?.headers["idempotency-key"]).toBe("idem_run_test_step_1");
    expect(b?.headers["idempotency-key"]).toBe(a?.headers["idempotency-key"]);
    await httpHandler(
      ctxFor({
        method: "POST",
        url: `${server.origin}/echo`,
        headers: { "Idempotency-Key": "mine" },
        body: {},
      }),
    );
    expect(server.requests.at(-1)?.headers["idempotency-key"]).toBe("mine");
  });

  it("treats 429 as operational and honours Retry-After (seconds and dates)", async () => {
    const f = await failureOf(httpHandler(ctxFor({ url: `${server.origin}/rate-limited` })));
    expect(f.failureClass).toBe("operational");
    expect(f.retryAfterMs).toBe(3000);
    expect(f.details).toMatchObject({ status: 429 });
    const d = await failureOf(httpHandler(ctxFor({ url: `${server.origin}/rate-limited-date` })));
    expect(d.retryAfterMs).toBeGreaterThan(55_000);
    expect(d.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it("treats 5xx as operational and other 4xx as user errors with an excerpt", async () => {
    for (const path of ["/unavailable", "/boom"]) {
      const f = await failureOf(httpHandler(ctxFor({ url: `${server.origin}${path}` })));
      expect(f.failureClass).toBe("operational");
    }
    const nf = await failureOf(httpHandler(ctxFor({ url: `${server.origin}/missing` })));
    expect(nf.failureClass).toBe("user");
    expect(nf.message).toContain("answered 404");
    expect(nf.message).toContain("no such thing here");
    expect((nf.details.bodyExcerpt as string).length).toBe(500);
  });

  it("fails with a user error when the response is larger than maxResponseBytes", async () => {
    const f = await failureOf(
      httpHandler(ctxFor({ url: `${server.origin}/big`, maxResponseBytes: 1024 })),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toContain("exceeds the 1 KiB limit");
  });

  it("times out as an operational failure, and stops when the run is cancelled", async () => {
    const started = Date.now();
    const f = await failureOf(
      httpHandler(ctxFor({ url: `${server.origin}/slow`, timeoutMs: 200 })),
    );
    expect(f.failureClass).toBe("operational");
    expect(f.message).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
    const ctx = ctxFor({ url: `${server.origin}/slow` });
    setTimeout(() => ctx.abort.abort(), 100);
    const c = await failureOf(httpHandler(ctx));
    expect(c.message).toMatch(/cancelled/);
  });

  it("refuses private addresses unless allowed, naming the address class", async () => {
    const f = await failureOf(
      httpHandler(makeActionContext(HttpConfig, { url: `${server.origin}/json` })),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/loopback address/);
    expect(f.details).toMatchObject({ code: "BLOCKED_ADDRESS", addressClass: "loopback" });
    const meta = await failureOf(
      httpHandler(
        makeActionContext(HttpConfig, { url: "http://169.254.169.254/latest/meta-data/" }),
      ),
    );
    expect(meta.message).toMatch(/cloud metadata endpoint/);
  });

  it("enforces allowedDomains", async () => {
    // A literal URL outside allowedDomains is a validation error; a templated one is checked here.
    const ctx = ctxFor({ url: "{{ input.url }}", allowedDomains: ["api.example.com"] });
    ctx.config.url = `${server.origin}/json`;
    const f = await failureOf(httpHandler(ctx));
    expect(f.failureClass).toBe("user");
    expect(f.details).toMatchObject({ code: "DOMAIN_NOT_ALLOWED" });
  });
});
