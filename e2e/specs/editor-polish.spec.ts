import { expect, test, type Page } from "@playwright/test";
import { proposeChange, republish } from "../fixtures/proposals";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { ProposalListPage } from "../pages/proposal-pages";
import { RunPage } from "../pages/run-pages";
import { TriggersPage } from "../pages/trigger-pages";
import { DefinitionEditor, VersionsPage } from "../pages/workflow-pages";

test.use({ storageState: OWNER_STATE });

/** A small valid definition; `value` changes its content (and so its hash). */
function definition(name: string, value = "Hello {{ input.who }}") {
  return {
    schemaVersion: 1,
    name,
    inputs: { who: { type: "string", default: "world" } },
    steps: [{ id: "greet", type: "transform", config: { value } }],
    output: "{{ steps.greet.output.data }}",
  };
}

/** Every console error and uncaught page error from now on, as text. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`${e.name}: ${e.message}`));
  return errors;
}

// React's production hydration errors (#418 text/HTML, #423 recovered by client render, #425 text)
// and their development wording.
const HYDRATION = /#418\b|#423\b|#425\b|Hydration failed|did not match/i;

test("Monaco's completion rows show their label next to the icon", async ({ page, request }) => {
  const name = `Completion ${Date.now()}`;
  const workflowId = await publishWorkflow(request, definition(name));
  await page.goto(`/workflows/${workflowId}/edit`);
  const editor = new DefinitionEditor(page);
  await editor.waitLoaded();

  const row = (await editor.openKeyCompletion()).first();
  // Monaco's internals have no roles: its own class names locate the label and the kind icon.
  const label = row.locator(".monaco-icon-label");
  const icon = row.locator(".suggest-icon");
  await expect(label).toHaveText(/\w/);
  // Nor link-blue: the label is an <a> that the app's global link colour must leave alone.
  await expect(label.locator("a.label-name")).not.toHaveCSS("color", "rgb(47, 91, 234)");
  const [rowBox, labelBox, iconBox] = await Promise.all([
    row.boundingBox(),
    label.boundingBox(),
    icon.boundingBox(),
  ]);
  expect(labelBox!.width).toBeGreaterThan(0);
  // On the row's line, not pushed below it (where the row clips it) by a stacked, stretched icon.
  expect(labelBox!.y).toBeGreaterThanOrEqual(rowBox!.y - 1);
  expect(labelBox!.y + labelBox!.height).toBeLessThanOrEqual(rowBox!.y + rowBox!.height + 1);
  expect(iconBox!.width).toBeLessThan(rowBox!.width / 4);
  expect(iconBox!.x + iconBox!.width).toBeLessThanOrEqual(labelBox!.x + 1);
  // And actually painted there: the topmost element at the label's start is the label.
  const isOnTop = await label.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + Math.min(8, r.width / 2), r.y + r.height / 2);
    return hit !== null && el.contains(hit);
  });
  expect(isOnTop).toBe(true);
  await page.keyboard.press("Escape");
  await expect(editor.suggestions()).toBeHidden();
});

test("the workflow tabs and the run page hydrate without mismatches", async ({ page, request }) => {
  const name = `Hydration ${Date.now()}`;
  // Proposals need the workflow's consent.
  const constraints = { allowSelfModification: true };
  const workflowId = await publishWorkflow(request, { ...definition(name), constraints });
  // Data that renders times: a trigger that fired (last fired, last run), a run, a proposal.
  const created = await trpcMutation(request, "trigger.create", {
    kind: "schedule",
    workflowId,
    name: "Hourly",
    config: { cron: "0 * * * *", timezone: "UTC" },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const triggerId = (
    (await created.json()) as { result: { data: { json: { trigger: { id: string } } } } }
  ).result.data.json.trigger.id;
  const fired = await trpcMutation(request, "trigger.fire", { triggerId });
  expect(fired.ok(), await fired.text()).toBe(true);
  const runId = await startRun(request, workflowId);
  const summary = `Greet more warmly ${Date.now()}`;
  await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: { ...definition(name, "Good morning {{ input.who }}"), constraints },
  });

  const errors = collectErrors(page);
  const hydrationErrors = () => errors.filter((e) => HYDRATION.test(e));

  // Full page loads (server-rendered, then hydrated); each waits for client-fetched data, which
  // shows only after hydration has finished.
  await page.goto(`/workflows/${workflowId}/edit`);
  await new DefinitionEditor(page).waitLoaded();
  expect(hydrationErrors(), "Editor").toEqual([]);

  const triggers = new TriggersPage(page);
  await triggers.goto(workflowId);
  await expect(triggers.row("Hourly").getByRole("link", { name: /^Run run_/ })).toBeVisible();
  expect(hydrationErrors(), "Triggers").toEqual([]);

  const versions = new VersionsPage(page);
  await versions.goto(workflowId);
  await expect(versions.history().getByRole("row").nth(1)).toContainText("current");
  expect(hydrationErrors(), "Versions").toEqual([]);

  const proposals = new ProposalListPage(page);
  await proposals.gotoWorkflow(workflowId);
  await expect(proposals.row(summary)).toBeVisible();
  expect(hydrationErrors(), "Proposals").toEqual([]);

  await page.goto(`/workflows/${workflowId}/runs`);
  await expect(
    page.getByRole("region", { name: "Runs" }).getByRole("link", { name: runId }),
  ).toBeVisible();
  expect(hydrationErrors(), "Runs").toEqual([]);

  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.graphNodes()).toHaveCount(1);
  expect(hydrationErrors(), "Run").toEqual([]);

  // Settings pages prefetch on the server too (awaited: the server renders the data).
  await page.goto("/settings/members");
  await expect(page.getByRole("table").first()).toBeVisible();
  expect(hydrationErrors(), "Members").toEqual([]);
  await page.goto("/settings/policies");
  await expect(page.getByRole("heading", { name: "Change proposals" })).toBeVisible();
  expect(hydrationErrors(), "Policies").toEqual([]);
  await page.goto("/settings/integrations");
  await expect(page.getByRole("heading", { name: "LLM endpoint" })).toBeVisible();
  expect(hydrationErrors(), "Integrations").toEqual([]);
});

test("Publish… is disabled while the draft is identical to the published version", async ({
  page,
  request,
}) => {
  const name = `Unchanged ${Date.now()}`;
  const published = definition(name);
  const workflowId = await publishWorkflow(request, published);
  const { currentVersion } = await trpcQuery<{ currentVersion: { version: string } }>(
    request,
    "workflow.get",
    { workflowId },
  );
  const identical = `The draft is identical to v${currentVersion.version}`;
  await page.goto(`/workflows/${workflowId}/edit`);
  const editor = new DefinitionEditor(page);
  await editor.waitLoaded();
  const publish = editor.publishButton();
  await expect(publish).toBeDisabled();
  await expect(publish).toHaveAttribute("title", identical);

  // Key order and whitespace do not matter (the content hash does), a changed value does.
  await editor.replaceText(JSON.stringify(definition(name, "Hi {{ input.who }}"), null, 4));
  await expect(publish).toBeEnabled();
  await expect(publish).not.toHaveAttribute("title", /.+/);
  const { steps, ...rest } = published;
  await editor.replaceText(JSON.stringify({ steps, ...rest }));
  await expect(publish).toBeDisabled();
  await expect(publish).toHaveAttribute("title", identical);
  await editor.expectSaved();
});

test("the run graph fits its panel, clear of the zoom controls", async ({ page, request }) => {
  const name = `Chain ${Date.now()}`;
  const ids = ["fetch", "parse", "enrich", "score", "format", "finish"];
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name,
    steps: ids.map((id) => ({ id, type: "transform", config: { value: `step ${id}` } })),
    output: "{{ steps.finish.output.data }}",
  });
  const runId = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.graphNodes()).toHaveCount(ids.length);
  await expect(run.graphNodes().last()).toHaveAccessibleName(/completed$/);
  await expect(run.graphControls()).toHaveCount(3);

  await expectGraphFits(run);
  // The panel follows the window (its height is capped at 75vh): the graph refits.
  await page.setViewportSize({ width: 1280, height: 560 });
  await expectGraphFits(run);
  await page.setViewportSize({ width: 1000, height: 720 });
  await expectGraphFits(run);
});

/** Every step node inside the canvas and clear of the zoom controls (retried until settled). */
async function expectGraphFits(run: RunPage) {
  await expect(async () => {
    const canvas = (await run.graphCanvas().boundingBox())!;
    const controls = await Promise.all(
      (await run.graphControls().all()).map(async (b) => (await b.boundingBox())!),
    );
    const nodes = await Promise.all(
      (await run.graphNodes().all()).map(async (n) => ({
        name: await n.getAttribute("aria-label"),
        box: (await n.boundingBox())!,
      })),
    );
    for (const { name: node, box } of nodes) {
      expect(box.x, `${node} left`).toBeGreaterThanOrEqual(canvas.x);
      expect(box.y, `${node} top`).toBeGreaterThanOrEqual(canvas.y);
      expect(box.x + box.width, `${node} right`).toBeLessThanOrEqual(canvas.x + canvas.width);
      expect(box.y + box.height, `${node} bottom`).toBeLessThanOrEqual(canvas.y + canvas.height);
      for (const c of controls) {
        const overlaps =
          box.x < c.x + c.width &&
          c.x < box.x + box.width &&
          box.y < c.y + c.height &&
          c.y < box.y + box.height;
        expect(overlaps, `${node} under the zoom controls`).toBe(false);
      }
    }
  }).toPass();
}

test("leaving the Versions compare disposes the diff editor cleanly", async ({ page, request }) => {
  const name = `Compare ${Date.now()}`;
  const workflowId = await publishWorkflow(request, definition(name));
  await republish(request, workflowId, definition(name, "Hi there {{ input.who }}"));
  const errors = collectErrors(page);

  const versions = new VersionsPage(page);
  await versions.goto(workflowId);
  await versions.compare("v1.0.0", "v1.0.1");
  await expect(versions.jsonDiff()).toBeVisible();
  // Client-side navigation unmounts the diff editor (and its text models).
  await versions.tab("Editor").click();
  await new DefinitionEditor(page).waitLoaded();
  // And once more, through the browser's history.
  await page.goBack();
  await expect(versions.jsonDiff()).toBeVisible();
  await versions.tab("Runs").click();
  await expect(page.getByRole("region", { name: "Runs" })).toBeVisible();
  expect(errors.filter((e) => /got disposed|DiffEditorWidget/.test(e))).toEqual([]);
});
