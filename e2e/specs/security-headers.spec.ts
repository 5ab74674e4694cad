import { expect, test, type APIResponse, type Page, type Response } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow } from "../fixtures/workflows";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { DefinitionEditor } from "../pages/workflow-pages";

test.use({ storageState: OWNER_STATE });

type AnyResponse = Response | APIResponse;
const header = (res: AnyResponse, name: string) => res.headers()[name.toLowerCase()];

function expectCommonHeaders(res: AnyResponse, label: string) {
  expect(header(res, "x-content-type-options"), label).toBe("nosniff");
  expect(header(res, "referrer-policy"), label).toBe("strict-origin-when-cross-origin");
  expect(header(res, "x-frame-options"), label).toBe("DENY");
  expect(header(res, "permissions-policy"), label).toContain("camera=()");
  // The e2e server's public URL is http://localhost: no HSTS there.
  expect(header(res, "strict-transport-security"), label).toBeUndefined();
}

function expectApiHeaders(res: AnyResponse, label: string) {
  expectCommonHeaders(res, label);
  expect(header(res, "content-security-policy"), label).toBe(
    "default-src 'none'; frame-ancestors 'none'",
  );
  // Issue 25: no API answer may be cached (a handler's own no-store policy may add to it).
  expect(header(res, "cache-control"), label).toMatch(/\bno-store\b/);
}

/**
 * Every CSP violation from now on: the DOM's securitypolicyviolation events (reported through a
 * binding) and Chromium's console reports, which also cover workers.
 */
async function collectCspViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) violations.push(`console: ${m.text()}`);
  });
  await page.exposeBinding("__reportCspViolation", (_src, text: string) => {
    violations.push(`event: ${text}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (window as unknown as { __reportCspViolation: (t: string) => void })
        .__reportCspViolation;
      void report(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile})`);
    });
  });
  return violations;
}

function definition(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: { who: { type: "string", default: "world" } },
    steps: [{ id: "greet", type: "transform", config: { value: "Hello {{ input.who }}" } }],
    output: "{{ steps.greet.output.data }}",
  };
}

test("pages carry a fresh nonce CSP that Next puts on its own scripts", async ({ page }) => {
  const violations = await collectCspViolations(page);
  const first = (await page.goto("/workflows"))!;
  expectCommonHeaders(first, "page");
  const csp = header(first, "content-security-policy")!;
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
  // Next's inline and chunk scripts carry this request's nonce (the DOM hides the attribute
  // value, the property keeps it).
  const nonces = await page.evaluate(() =>
    [...document.querySelectorAll("script")].map((s) => s.nonce),
  );
  expect(nonces.length).toBeGreaterThan(0);
  expect(new Set(nonces)).toEqual(new Set([nonce]));
  await expect(page.getByRole("heading", { name: "Workflows", exact: true })).toBeVisible();

  const second = (await page.reload())!;
  expect(header(second, "content-security-policy")).not.toBe(csp);
  expect(violations).toEqual([]);
});

test("every route family answers with the security headers", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const signIn = (await page.goto("/sign-in"))!;
  expectCommonHeaders(signIn, "/sign-in");
  expect(header(signIn, "content-security-policy")).toContain("'nonce-");

  // A static chunk and a public file: the headers, without a CSP.
  const chunk = await page.evaluate(
    () => document.querySelector<HTMLScriptElement>("script[src*='/_next/static/']")!.src,
  );
  const asset = await request.get(chunk);
  expect(asset.ok()).toBe(true);
  expectCommonHeaders(asset, "static chunk");
  expect(header(asset, "content-security-policy")).toBeUndefined();
  expectCommonHeaders(await request.get("/favicon.ico"), "/favicon.ico");

  const api: [string, () => Promise<APIResponse>][] = [
    ["/api/trpc", () => request.get("/api/trpc/workflow.list")],
    ["/api/v1", () => request.get("/api/v1/me")],
    ["/api/v1 404", () => request.get("/api/v1/no-such-route")],
    ["/api/hooks", () => request.post("/api/hooks/no/such/hook", { data: {} })],
    ["/api/mcp", () => request.post("/api/mcp", { data: {} })],
    // Unsigned, so the SDK logs "Signature validation failed": expected, the answer still counts.
    ["/api/inngest", () => request.get("/api/inngest")],
    ["/api/auth", () => request.get("/api/auth/csrf")],
    ["/api 404", () => request.get("/api/no-such-route")],
  ];
  for (const [label, call] of api) expectApiHeaders(await call(), label);

  // next-auth's cookies: HttpOnly and SameSite=Lax (Secure only behind https). A context without
  // the signed-in state, so next-auth sets its cookies afresh.
  const anonymous = await playwright.request.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
  });
  const csrf = await anonymous.get("/api/auth/csrf");
  const cookies = csrf.headersArray().filter((h) => h.name.toLowerCase() === "set-cookie");
  expect(cookies.length).toBeGreaterThan(0);
  for (const { value } of cookies) {
    expect(value).toMatch(/;\s*HttpOnly/i);
    expect(value).toMatch(/;\s*SameSite=Lax/i);
    expect(value).not.toMatch(/;\s*Secure/i);
  }
  await anonymous.dispose();
});

test("the JSON editor (Monaco and its workers) and the graph editor run under the CSP", async ({
  page,
  request,
}) => {
  const violations = await collectCspViolations(page);
  const workers: string[] = [];
  page.on("worker", (w) => workers.push(w.url()));
  const workflowId = await publishWorkflow(request, definition(`CSP ${Date.now()}`));

  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);
  await expect(graph.node("greet")).toBeVisible();

  const editor = new DefinitionEditor(page);
  await editor.goto(workflowId);
  // Key completions come from Monaco's JSON worker: they show only if the worker started.
  await expect((await editor.openKeyCompletion()).first()).toBeVisible();
  await page.keyboard.press("Escape");
  expect(workers.length).toBeGreaterThan(0);

  await graph.goto(workflowId);
  await expect(graph.node("greet")).toBeVisible();
  expect(violations).toEqual([]);
});
