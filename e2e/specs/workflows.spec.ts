import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { DefinitionEditor, WorkflowsPage } from "../pages/workflow-pages";

test.use({ storageState: OWNER_STATE });

test("create from a template, edit JSON with live validation, publish, compare and roll back", async ({
  page,
}) => {
  // Monaco must come from the app itself, never a CDN.
  const external: string[] = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== "localhost" && url.hostname !== "127.0.0.1") {
      external.push(url.href);
      return route.abort();
    }
    return route.continue();
  });

  const workflows = new WorkflowsPage(page);
  const name = `Release ${Date.now()}`;
  const id = await workflows.create(name, "Release train");
  const editor = new DefinitionEditor(page);
  await editor.waitLoaded();
  await expect(editor.problems()).toContainText("0 errors");

  // Break it: an unknown step type and a reference to a missing step are both reported.
  const broken = {
    schemaVersion: 1,
    name,
    steps: [
      { id: "first", type: "teleport", config: {} },
      { id: "second", type: "transform", config: { value: "{{ steps.ghost.output.data }}" } },
    ],
  };
  await editor.replaceText(JSON.stringify(broken, null, 2));
  await expect(editor.problems()).toContainText(/2 errors|[3-9] errors/);
  await expect(editor.problems()).toContainText("teleport");
  await expect(page.getByRole("button", { name: "Publish…" })).toBeDisabled();
  // Jump to the problem: the editor gets focus at its location.
  await editor.problems().getByRole("button").filter({ hasText: "teleport" }).first().click();
  await expect(editor.editor().locator(".monaco-editor.focused")).toBeVisible();

  // Fix it, let autosave store the draft, publish.
  const fixed = {
    schemaVersion: 1,
    name,
    inputs: { who: { type: "string", default: "world" } },
    steps: [{ id: "greet", type: "transform", config: { value: "Hello {{ input.who }}" } }],
    output: "{{ steps.greet.output.data }}",
  };
  await editor.replaceText(JSON.stringify(fixed, null, 2));
  await expect(editor.problems()).toContainText("0 errors");
  await editor.expectSaved();
  await editor.publish("minor");
  await expect(page.getByText("Published v1.1.0")).toBeVisible();

  // Versions: history, compare (Monaco diff), roll back to 1.0.0.
  await page.getByRole("link", { name: "Versions" }).click();
  const history = page.getByRole("region", { name: "History" });
  await expect(history.getByRole("row")).toHaveCount(3);
  await expect(history.getByRole("row").nth(1)).toContainText("v1.1.0");
  await expect(page.getByTestId("diff-summary")).toContainText("v1.0.0 → v1.1.0");
  await expect(page.getByTestId("diff-editor").locator(".monaco-diff-editor")).toBeVisible();
  await history
    .getByRole("row")
    .filter({ hasText: "v1.0.0" })
    .getByRole("button", { name: "Roll back to this" })
    .click();
  await page.getByRole("dialog").getByRole("button", { name: "Roll back" }).click();
  await expect(page.getByText("Restored v1.0.0 as v1.1.1")).toBeVisible();
  await expect(history.getByRole("row").nth(1)).toContainText("v1.1.1");
  await expect(history.getByRole("row").nth(1)).toContainText("restores v1.0.0");

  // Export downloads the current definition.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export JSON" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/-v1\.1\.1\.json$/);

  // The list shows it, searchable, and it can be disabled.
  await workflows.goto();
  await page.getByLabel("Search workflows").fill(name);
  await expect(workflows.row(name)).toContainText("v1.1.1");
  await workflows.row(name).getByRole("switch").uncheck();
  await expect(workflows.row(name)).toContainText("disabled");
  expect(external).toEqual([]);
  expect(id).toMatch(/^wf_/);
});

test("import a YAML definition; bad input is explained", async ({ page }) => {
  await page.goto("/workflows/new");
  await page.getByRole("tab", { name: "Import JSON or YAML" }).click();
  await page
    .getByLabel("Definition")
    .fill("schemaVersion: 1\nname: Imported\nsteps:\n  - id: a\n    type: nope\n");
  await page.getByRole("button", { name: "Import workflow" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "nope" })).toBeVisible();
  await page
    .getByLabel("Definition")
    .fill(
      `schemaVersion: 1\nname: Imported ${Date.now()}\nsteps:\n  - id: a\n    type: transform\n    config:\n      value: 1\n`,
    );
  await page.getByRole("button", { name: "Import workflow" }).click();
  await expect(page).toHaveURL(/\/workflows\/wf_[a-z0-9]+$/);
  await expect(page.getByRole("region", { name: "Version" })).toContainText("v1.0.0");
});
