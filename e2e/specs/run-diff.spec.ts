import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { allowPrivateHost, publishWorkflow, startRun } from "../fixtures/workflows";
import { ProposalReviewPage } from "../pages/proposal-pages";
import { RunComparePage } from "../pages/run-compare-page";
import { RunPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

/** A local API answering about 0.9 MB of JSON whose `needle` is the call count. */
let server: http.Server;
let origin = "";
let calls = 0;
const items = Array.from({ length: 4500 }, (_, i) => ({ id: i, note: "x".repeat(160) }));
test.beforeAll(async () => {
  server = http.createServer((_req, res) => {
    calls += 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ items, needle: calls }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const stamp = () => Date.now().toString(36);

test.describe("run diff", () => {
  let restore: () => Promise<void> = async () => {};
  test.beforeEach(async ({ request }) => {
    restore = await allowPrivateHost(request, "127.0.0.1");
  });
  test.afterEach(async () => {
    await restore();
  });

  test("compare with the previous run in one click, a large output diffed without freezing, then pick any run", async ({
    page,
    request,
  }) => {
    const workflowId = await publishWorkflow(request, {
      schemaVersion: 1,
      name: `Compared ${stamp()}`,
      inputs: { who: { type: "string", default: "ann" } },
      steps: [
        { id: "greet", type: "transform", config: { value: "hello {{ input.who }}" } },
        { id: "fetch", type: "http", config: { url: `${origin}/big` } },
      ],
      edges: [{ from: "greet", to: "fetch" }],
    });
    const run = new RunPage(page);
    const first = await startRun(request, workflowId, { who: "ann" });
    await run.goto(first);
    await run.expectStatus("completed");
    const second = await startRun(request, workflowId, { who: "bob" });
    await run.goto(second);
    await run.expectStatus("completed");

    await page.getByRole("link", { name: "Compare with previous run" }).click();
    const compare = new RunComparePage(page);
    await compare.expectLoaded();
    await expect(compare.side("A")).toContainText(first);
    await expect(compare.side("B")).toContainText(second);
    await expect(compare.summary()).toContainText("Same version");
    await expect(compare.summary()).toContainText("Both runs took the same path");

    const greet = await compare.openStep("greet");
    await expect(greet.getByRole("list", { name: "Result changes" })).toContainText('"hello bob"');
    // The ~1 MB response: only the change travels and renders, on expand.
    const fetch = await compare.openStep("fetch");
    const changes = fetch.getByRole("list", { name: "Result changes" });
    await expect(changes).toContainText("$.body.needle");
    await expect(changes.getByRole("listitem").filter({ hasText: "$.body.items" })).toHaveCount(0);

    // The picker takes any run id of the workspace (here the first run, named explicitly).
    await compare.compareWith(first);
    await expect(page).toHaveURL(new RegExp(`with=${first}`));
    await expect(compare.side("A")).toContainText(first);
    await expect(compare.steps()).toContainText("Show the");
  });
});

test("the proposal review lists the runs in flight on the base version and the triggers", async ({
  page,
  request,
}) => {
  const constraints = { allowSelfModification: true };
  const definition = (value: string) => ({
    schemaVersion: 1,
    name: `In flight ${stamp()}`,
    constraints,
    steps: [
      { id: "ask", type: "approval", config: { prompt: "Go?" } },
      { id: "ship", type: "transform", config: { value } },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
  });
  const workflowId = await publishWorkflow(request, definition("v1"));
  const waiting = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(waiting);
  await run.expectStatus("waiting");
  const created = await trpcMutation(request, "trigger.create", {
    kind: "schedule",
    workflowId,
    name: "Nightly",
    config: { cron: "0 2 * * *", timezone: "UTC" },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const summary = `Ship v2 ${stamp()}`;
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: definition("v2"),
  });

  const review = new ProposalReviewPage(page);
  await review.goto(workflowId, proposalId);
  const impact = page.getByRole("region", { name: "In-flight impact" });
  await expect(impact).toContainText("Runs in flight on v");
  await expect(impact.getByRole("list", { name: "Runs in flight" })).toContainText(waiting);
  await expect(impact).toContainText("keep their pinned version");
  await expect(impact.getByRole("list", { name: "Triggers" })).toContainText("Nightly");
  await expect(impact.getByRole("list", { name: "Triggers" })).toContainText("0 2 * * *");
  await impact.getByRole("link", { name: waiting }).click();
  await run.expectStatus("waiting");
});
