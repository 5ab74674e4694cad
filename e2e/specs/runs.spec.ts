import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { allowPrivateHost, publishWorkflow, startInlineRun, startRun } from "../fixtures/workflows";
import { SecretsPage } from "../pages/settings-pages";
import { ApprovalsPage, RunForm, RunPage, RunsListPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

/** A local API for http steps: answers 201 with JSON and counts the calls. */
let server: http.Server;
let origin = "";
let calls = 0;
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    calls += 1;
    res.writeHead(201, { "content-type": "application/json" });
    res.end(JSON.stringify({ hello: "world", path: req.url, n: calls }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const stamp = () => Date.now().toString(36);

function gateWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: {
      release: { type: "string", required: true, description: "Release to ship" },
      dryRun: { type: "boolean", default: false },
    },
    steps: [
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.release }}?",
          items: ["release {{ input.release }}"],
          allowInitiator: true,
        },
      },
      { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
    output: "{{ steps.ship.output.data }}",
  };
}

test("run from the form, approve from the inbox, completed with its output", async ({
  page,
  request,
}) => {
  const name = `Gate ${stamp()}`;
  const release = `r-${stamp()}`;
  const workflowId = await publishWorkflow(request, gateWorkflow(name));
  await page.goto(`/workflows/${workflowId}`);
  const form = new RunForm(page);
  await form.open();
  // Required input left empty: the error is named at the field.
  await form.submit();
  await expect(form.dialog().getByText(/Input "release" is required/)).toBeVisible();
  await form.field("release").fill(release);
  await form.submit();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const run = new RunPage(page);
  const runId = run.runId();
  await run.expectStatus("waiting");
  await expect(run.gates()).toContainText(`Ship ${release}?`);

  // The sidebar counts it; the inbox decides it.
  await expect(page.getByTestId("approvals-badge")).toBeVisible();
  const inbox = new ApprovalsPage(page);
  await inbox.goto();
  await expect(inbox.gate(`Ship ${release}?`)).toContainText(`release ${release}`);
  await inbox.decide(`Ship ${release}?`, true, "LGTM");
  await expect(inbox.gate(`Ship ${release}?`)).toHaveCount(0);
  await page.getByRole("tab", { name: "History" }).click();
  await expect(page.getByRole("row").filter({ hasText: `Ship ${release}?` })).toContainText("LGTM");

  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText(`shipped ${release}`);
  // The embedded executor's execution id (a ULID), shown without a dashboard link.
  await expect(run.execution()).toHaveText(/^[0-9A-Z]{26}$/);
  await expect(run.execution().getByRole("link")).toHaveCount(0);
  await expect(run.stepRow("ship")).toContainText("completed");

  // The workflow's Runs tab lists it.
  await page.goto(`/workflows/${workflowId}/runs`);
  await expect(page.getByRole("link", { name: runId })).toBeVisible();
});

test("the initiator rule is explained on the run page, with a link to the setting that allows it", async ({
  page,
  request,
}) => {
  const definition = gateWorkflow(`Four eyes ${stamp()}`);
  const ask = definition.steps[0]!.config as Record<string, unknown>;
  delete ask.allowInitiator;
  const workflowId = await publishWorkflow(request, definition);
  // Started by the signed-in owner: the gate refuses its own initiator.
  const runId = await startRun(request, workflowId, { release: "mine" });
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("waiting");
  const note = run.gates().getByRole("note");
  await expect(note).toContainText("You started this run");
  await expect(note).toContainText(`"allowInitiator" on the approval step "ask"`);
  await expect(run.gates().getByRole("button", { name: "Approve" })).toHaveCount(0);
  await note.getByRole("link", { name: "Open the workflow's JSON in the editor" }).click();
  await expect(page).toHaveURL(new RegExp(`/workflows/${workflowId}/edit\\?view=json`));
});

test("reject on the run page cancels the run", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, gateWorkflow(`Reject ${stamp()}`));
  const runId = await startRun(request, workflowId, { release: "nope" });
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("waiting");
  await run.gates().getByRole("button", { name: "Reject" }).click();
  await expect(run.gates().getByRole("alert")).toContainText("Give a reason");
  await run.decide(false, "Not this week");
  await run.expectStatus("cancelled");
  await expect(page.getByRole("alert", { name: "Run error" })).toBeVisible();

  // Rerun the whole run with an edited input (the same generated form as a manual run).
  await page.getByRole("button", { name: "Rerun…" }).click();
  const dialog = page.getByRole("dialog", { name: "Rerun" });
  await dialog.getByLabel("Edit the input").check();
  await expect(dialog.getByLabel(/^release/)).toHaveValue("nope");
  await dialog.getByLabel(/^release/).fill("");
  await dialog.getByRole("button", { name: "Start rerun" }).click();
  await expect(dialog.getByText(/Input "release" is required/)).toBeVisible();
  await dialog.getByLabel(/^release/).fill("again");
  await dialog.getByRole("button", { name: "Start rerun" }).click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await run.expectStatus("waiting");
  await expect(run.gates()).toContainText("Ship again?");
  await run.decide(false, "Still no");
  await run.expectStatus("cancelled");
});

test("an inline run shows as Inline in the runs list (filter: Inline runs) and on its page", async ({
  page,
  request,
}) => {
  const runId = await startInlineRun(
    request,
    {
      schemaVersion: 1,
      name: `Scratch ${stamp()}`,
      steps: [{ id: "hi", type: "transform", config: { value: "hi {{ input.who }}" } }],
      inputs: { who: { type: "string", required: true } },
      output: "{{ steps.hi.output.data }}",
    },
    { who: "e2e" },
  );
  const list = new RunsListPage(page);
  await list.goto();
  await list.filter("Workflow").selectOption({ label: "Inline runs" });
  await expect(page).toHaveURL(/workflow=inline/);
  await expect(list.row(runId)).toContainText("Inline");
  await list.runLink(runId).click();
  const run = new RunPage(page);
  await run.expectStatus("completed");
  await expect(page.getByText("Inline", { exact: true })).toBeVisible();
});

test("cancel a run sleeping in a delay step", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Sleepy ${stamp()}`,
    steps: [
      { id: "nap", type: "delay", config: { duration: "1h" } },
      { id: "after", type: "transform", config: { value: 1 } },
    ],
  });
  const runId = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("waiting");
  await expect(run.stepRow("nap")).toContainText("waiting");
  await run.cancel();
  await run.expectStatus("cancelled");
  await expect(run.stepRow("after")).toHaveCount(0);

  // The runs list filters by status through the URL (kept on reload).
  await page.goto("/runs");
  const statuses = page.getByRole("group", { name: "Status" });
  await statuses.getByRole("button", { name: "cancelled", exact: true }).click();
  await expect(page).toHaveURL(/status=cancelled/);
  await expect(page.getByRole("link", { name: runId })).toBeVisible();
  await page.reload();
  await expect(statuses.getByRole("button", { name: "cancelled", exact: true })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await statuses.getByRole("button", { name: "cancelled", exact: true }).click();
  await statuses.getByRole("button", { name: "completed", exact: true }).click();
  await expect(page).toHaveURL(/status=completed/);
  await expect(page.getByRole("link", { name: runId })).toHaveCount(0);
});

test("http step against a local server: status and body on the run page; rerun from a step repeats it", async ({
  page,
  request,
}) => {
  const restorePolicies = await allowPrivateHost(request, "127.0.0.1");
  try {
    const workflowId = await publishWorkflow(request, {
      schemaVersion: 1,
      name: `Call ${stamp()}`,
      steps: [
        { id: "prepare", type: "transform", config: { value: { q: "ping" } } },
        { id: "call", type: "http", config: { url: `${origin}/ping` } },
        {
          id: "finish",
          type: "transform",
          config: { value: "{{ steps.call.output.data.status }}" },
        },
      ],
      output: "{{ steps.finish.output.data }}",
    });
    const runId = await startRun(request, workflowId);
    const run = new RunPage(page);
    await run.goto(runId);
    await run.expectStatus("completed");
    // Keyboard: focus the graph node and press Enter to open its details.
    await page
      .getByTestId("run-graph")
      .getByRole("group", { name: /Step finish/ })
      .focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("region", { name: "Step finish" })).toBeVisible();
    const details = await run.openStep("call");
    await expect(details).toContainText('"status": 201');
    await expect(details).toContainText('"hello": "world"');
    await expect(run.output()).toContainText("201");
    const before = calls;

    // Rerun from the http step: the preview names it as a repeating side effect.
    await run.page().getByRole("button", { name: "Rerun from here…" }).click();
    const dialog = page.getByRole("dialog", { name: "Rerun" });
    await expect(dialog.getByLabel("From step")).toHaveValue("call");
    await expect(dialog.getByTestId("rerun-side-effects")).toContainText("call");
    await dialog.getByRole("button", { name: "Start rerun" }).click();
    await expect(page).not.toHaveURL(new RegExp(runId));
    await run.expectStatus("completed");
    await expect(page.getByRole("link", { name: runId })).toBeVisible();
    expect(calls).toBe(before + 1);
    // The reused step did not run again in the rerun.
    await expect(run.stepRow("prepare")).toHaveCount(0);
    await expect(page.getByText("Reused from")).toContainText("prepare");
    await expect(
      page.getByTestId("run-graph").locator('.react-flow__node[data-id="prepare"]'),
    ).toHaveClass(/run-node-reused/);
    await expect(run.stepRow("call")).toContainText("completed");
  } finally {
    // Other specs share the workspace and expect loopback hosts refused.
    await restorePolicies();
  }
});

test("a new secret's value never shows again, also after a reload", async ({ page }) => {
  const secrets = new SecretsPage(page);
  await secrets.goto();
  const name = `E2E_RUNS_${stamp().toUpperCase()}`;
  const value = `s3cr3t-${stamp()}-value`;
  await secrets.create(name, value);
  await expect(page.getByText(value)).toHaveCount(0);
  expect(await page.content()).not.toContain(value);
  await page.reload();
  await expect(secrets.row(name)).toBeVisible();
  expect(await page.content()).not.toContain(value);
});
