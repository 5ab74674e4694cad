import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { allowPrivateHost, publishWorkflow, startRun } from "../fixtures/workflows";
import { AuditPage } from "../pages/audit-page";
import { RunPage } from "../pages/run-pages";
import { QuotasPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

/**
 * A local API: /flaky answers 503 to its first call and 200 after (a retried step), /big
 * answers about 1 MB of JSON whose last key is "needle_key".
 */
let server: http.Server;
let origin = "";
let flakyCalls = 0;
const big = {
  items: Array.from({ length: 5000 }, (_, i) => ({
    id: i,
    name: `item ${i}`,
    note: "x".repeat(160),
  })),
  needle_key: "found",
};
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/flaky") {
      flakyCalls += 1;
      res.writeHead(flakyCalls === 1 ? 503 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ call: flakyCalls }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(big));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const stamp = () => Date.now().toString(36);

/** A published prepare → call (http, retried once) workflow, run to completion; returns the run id. */
async function retriedRun(request: APIRequestContext): Promise<string> {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Waterfall ${stamp()}`,
    steps: [
      { id: "prepare", type: "transform", config: { value: 1 } },
      {
        id: "call",
        type: "http",
        config: { url: `${origin}/flaky` },
        retry: { maxAttempts: 2, backoffMs: 0 },
      },
    ],
    edges: [{ from: "prepare", to: "call" }],
  });
  flakyCalls = 0;
  return startRun(request, workflowId);
}

test.describe("steps", () => {
  let restore: () => Promise<void> = async () => {};
  test.beforeEach(async ({ request }) => {
    restore = await allowPrivateHost(request, "127.0.0.1");
  });
  test.afterEach(async () => {
    await restore();
  });

  test("a step opens in a drawer beside the graph, in view, deep-linkable, closed with Esc", async ({
    page,
    request,
  }) => {
    const runId = await retriedRun(request);
    const run = new RunPage(page);
    await run.goto(runId);
    await run.expectStatus("completed");

    await run
      .graph()
      .getByRole("group", { name: /^Step call/ })
      .click();
    const drawer = page.getByRole("region", { name: "Step call" });
    await expect(drawer).toBeVisible();
    await expect(drawer).toBeInViewport();
    const graph = await page.getByRole("region", { name: "Graph" }).boundingBox();
    const box = await drawer.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(graph!.x + graph!.width - 1);
    expect(box!.y).toBeLessThan(graph!.y + graph!.height);
    await expect(page).toHaveURL(/[?&]step=call/);
    await expect(drawer).toContainText("Attempt 2");
    await expect(drawer).toContainText("Attempt 1");

    await page.keyboard.press("Escape");
    await expect(drawer).toHaveCount(0);
    await expect(page).not.toHaveURL(/step=/);

    // Deep link: the URL opens the step.
    await page.goto(`/runs/${runId}?step=prepare`);
    await expect(page.getByRole("region", { name: "Step prepare" })).toBeInViewport();
  });

  test("the timeline draws a bar per attempt: a retried step shows two, with their status in words", async ({
    page,
    request,
  }) => {
    const run = new RunPage(page);
    await run.goto(await retriedRun(request));
    await run.expectStatus("completed");
    const bars = page.getByRole("list", { name: "call attempts" }).getByRole("listitem");
    await expect(bars).toHaveCount(2);
    await expect(bars.nth(0)).toContainText("#1 failed");
    await expect(bars.nth(1)).toContainText("#2 completed");
    await expect(
      page.getByRole("list", { name: "prepare attempts" }).getByRole("listitem"),
    ).toHaveCount(1);
  });
});

test("an approved run says who approved it, when and why", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Decided ${stamp()}`,
    steps: [
      { id: "ask", type: "approval", config: { prompt: "Ship it?", allowInitiator: true } },
      { id: "ship", type: "transform", config: { value: "shipped" } },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
  });
  const runId = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("waiting");
  await run.decide(true, "looks fine");
  await run.expectStatus("completed");
  const decisions = page.getByRole("region", { name: "Decisions" });
  await expect(decisions).toContainText(`Approved by ${OWNER.name}`);
  await expect(decisions).toContainText("“looks fine”");
  await expect(decisions).toContainText(/ago|now/);
});

test("a 1 MB output opens in a viewer whose search finds a key", async ({ page, request }) => {
  const restore = await allowPrivateHost(request, "127.0.0.1");
  try {
    const workflowId = await publishWorkflow(request, {
      schemaVersion: 1,
      name: `Big ${stamp()}`,
      steps: [
        {
          id: "fetch",
          type: "http",
          config: { url: `${origin}/big`, maxResponseBytes: 4_000_000 },
        },
      ],
    });
    const runId = await startRun(request, workflowId);
    const run = new RunPage(page);
    await run.goto(runId);
    await run.expectStatus("completed");
    const drawer = await run.openStep("fetch");
    await drawer.getByRole("button", { name: "View all of Output" }).click();
    const search = drawer.getByRole("searchbox", { name: "Search Output" });
    await search.fill("needle_key");
    await expect(drawer.getByRole("status").filter({ hasText: "matches" })).toHaveText(
      "1 of 1 matches",
    );
    await expect(drawer.getByTestId("json-viewer")).toContainText("needle_key");
  } finally {
    await restore();
  }
});

test.describe("settings", () => {
  test.afterEach(async ({ request }) => {
    const res = await trpcMutation(request, "quota.update", { plan: null, overrides: {} });
    expect(res.ok()).toBe(true);
  });

  test("audit details are pretty-printed JSON, not one character per line; quotas reset in words", async ({
    page,
    request,
  }) => {
    const res = await trpcMutation(request, "quota.update", { plan: "free", overrides: {} });
    expect(res.ok()).toBe(true);

    const audit = new AuditPage(page);
    await audit.goto();
    const details = audit.log.getByLabel("Details").first();
    await expect(details).toBeVisible();
    expect((await details.boundingBox())!.width).toBeGreaterThan(200);

    const quotas = new QuotasPage(page);
    await quotas.goto();
    await expect(
      page.getByText(/^Resets in .+, on \d{1,2} \w{3} \d{4} \d\d:\d\d UTC$/).first(),
    ).toBeVisible();
    await expect(page.locator("main")).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });
});
