import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow } from "../fixtures/workflows";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { RunForm, RunPage } from "../pages/run-pages";
import { DefinitionEditor, WorkflowsPage } from "../pages/workflow-pages";

// Four nodes side by side need room: at 1280×720 the canvas is about 400×420 px and its
// bottom-right quarter is the mini map.
test.use({ storageState: OWNER_STATE, viewport: { width: 1600, height: 1000 } });

type Step = { id: string; type: string; config: Record<string, unknown> };

test("build a branching workflow on the canvas, publish it and run it", async ({ page }) => {
  const name = `Graph ${Date.now()}`;
  await new WorkflowsPage(page).create(name, "Blank");
  const graph = new GraphEditorPage(page);
  await graph.waitLoaded(); // the Graph view is the default
  await expect(graph.viewLink("Graph")).toHaveAttribute("aria-current", "page");

  // The blank workflow's return step goes (mouse: select it, then Delete).
  await graph.node("done").click();
  await page.keyboard.press("Delete");
  await expect(graph.node("done")).toHaveCount(0);

  // Four steps dragged from the palette.
  await graph.dropFromPalette("Transform", { x: 300, y: 60 });
  await graph.dropFromPalette("Condition", { x: 300, y: 200 });
  await graph.dropFromPalette("Transform", { x: 150, y: 360 });
  await graph.dropFromPalette("Transform", { x: 450, y: 360 });
  for (const id of ["transform", "condition", "transform_2", "transform_3"])
    await expect(graph.node(id)).toBeVisible();

  // Wire them: transform → condition, condition true/false → the two branches.
  await graph.connect("transform", "success", "condition");
  await expect(graph.edge("transform", "success", "condition")).toBeVisible();
  // One condition port with the mouse, the other with the Connect picker, back to back: an edge
  // drawn right after another must be drawn (React Flow once lost the second one's handle
  // bounds when a re-derived node came back without its measured size).
  await graph.connect("condition", "true", "transform_2");
  await graph.connectWithPicker("condition", "false", "transform_3");
  await expect(graph.edge("condition", "true", "transform_2")).toBeVisible();
  await expect(graph.edge("condition", "false", "transform_3")).toContainText("false");

  // A refused connection says why (a cycle).
  await graph.connect("transform_2", "success", "transform");
  await expect(page.getByText(/would create a cycle/)).toBeVisible();
  await expect(graph.edge("transform_2", "success", "transform")).toHaveCount(0);

  // Undo and redo (toolbar and keyboard) the last edge.
  await graph.toolbarButton("Undo").click();
  await expect(graph.edge("condition", "false", "transform_3")).toHaveCount(0);
  await graph.toolbarButton("Redo").click();
  await expect(graph.edge("condition", "false", "transform_3")).toBeVisible();
  await graph.node("transform_3").click();
  await page.keyboard.press("ControlOrMeta+Z");
  await expect(graph.edge("condition", "false", "transform_3")).toHaveCount(0);
  await page.keyboard.press("ControlOrMeta+Shift+Z");
  await expect(graph.edge("condition", "false", "transform_3")).toBeVisible();

  // A broken reference, written in the JSON view, shows as an error badge on its node.
  const json = new DefinitionEditor(page);
  await graph.viewLink("JSON").click();
  await json.waitLoaded();
  const definition = JSON.parse(await json.readText()) as { steps: Step[] };
  const branch = definition.steps.find((s) => s.id === "transform_2")!;
  branch.config.value = "{{ steps.ghost.output.data }}";
  await json.replaceText(JSON.stringify(definition, null, 2));
  await expect(json.problems()).toContainText("ghost");
  await graph.viewLink("Graph").click();
  await expect(graph.errorBadge("transform_2")).toHaveText("1");
  // Selecting the problem selects its node; fixing the JSON clears the badge.
  await json.problems().getByRole("button").filter({ hasText: "ghost" }).first().click();
  await expect(graph.node("transform_2")).toHaveClass(/selected/);
  await graph.viewLink("JSON").click();
  await json.waitLoaded();
  branch.config.value = "{{ steps.condition.output.data }}";
  const current = JSON.parse(await json.readText()) as { steps: Step[] };
  current.steps = current.steps.map((s) => (s.id === branch.id ? branch : s));
  await json.replaceText(JSON.stringify(current, null, 2));
  await expect(json.problems()).not.toContainText("ghost");
  await graph.viewLink("Graph").click();
  await expect(graph.node("transform_2")).toBeVisible();
  await expect(graph.errorBadge("transform_2")).toHaveCount(0);

  // The false branch continues when the condition fails (inspector, edge selected).
  await graph.edge("condition", "false", "transform_3").click();
  await graph
    .inspector()
    .getByRole("radio", { name: /Continue/ })
    .check();
  await expect(graph.edge("condition", "false", "transform_3")).toContainText("continue");

  // Autosaved: a reload shows the same graph.
  await graph.expectSaved();
  await page.reload();
  await graph.waitLoaded();
  await expect(graph.nodes()).toHaveCount(4);
  await expect(graph.edge("condition", "false", "transform_3")).toContainText("continue");
  await expect(json.problems()).toContainText("0 errors");

  // Publish from the graph and run it.
  await json.publish();
  await expect(page.getByText(/Published v/)).toBeVisible();
  const form = new RunForm(page);
  await form.open();
  await form.submit();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const run = new RunPage(page);
  await run.expectStatus("completed");

  // Runs on the canvas: "Open in editor" shows that run's step statuses on the nodes.
  await page.getByRole("link", { name: "Open in editor" }).click();
  await expect(page).toHaveURL(/\/edit\?run=run_/);
  await graph.waitLoaded();
  await expect(page.getByRole("status", { name: "Run on the canvas" })).toContainText("completed");
  await expect(graph.runStatus("transform")).toHaveAttribute("data-run-status", "completed");
  await expect(graph.runStatus("condition")).toHaveAttribute("data-run-status", "completed");
  // Exactly one branch ran; the other was skipped.
  await expect(graph.canvas().locator('[data-run-status="skipped"]')).toHaveCount(1);
  await page.getByRole("button", { name: "Hide run" }).click();
  await expect(graph.canvas().locator("[data-run-status]")).toHaveCount(0);
});

test("keyboard only: add from the palette, connect with C, delete with Delete", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Keys ${Date.now()}`,
    steps: [{ id: "start", type: "transform", config: { value: 1 } }],
  });
  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);

  // Select "start" (focus it, Enter), then add a condition and a transform after it.
  await graph.node("start").focus();
  await page.keyboard.press("Enter");
  await expect(graph.node("start")).toHaveClass(/selected/);
  await graph.paletteEntry("Condition").focus();
  await page.keyboard.press("Enter");
  await expect(graph.edge("start", "success", "condition")).toBeVisible();
  await expect(graph.node("condition")).toBeFocused();
  await graph.paletteEntry("Transform").focus();
  await page.keyboard.press("Enter");
  await expect(graph.edge("condition", "true", "transform")).toBeVisible();

  // C on the condition: connect its false port to the transform too.
  await graph.node("condition").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("c");
  const dialog = graph.connectDialog("condition");
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("From port").selectOption("false");
  await dialog.getByLabel("To step").selectOption("transform");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(graph.edge("condition", "false", "transform")).toBeVisible();

  // A refused connection explains itself in the picker.
  await graph.node("transform").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("c");
  const back = graph.connectDialog("transform");
  await back.getByLabel("To step").selectOption("start");
  await page.keyboard.press("Enter");
  await expect(back.getByRole("alert")).toContainText("cycle");
  await page.keyboard.press("Escape");
  await expect(back).toBeHidden();

  // Delete removes the selected step and its edges.
  await graph.node("transform").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Delete");
  await expect(graph.node("transform")).toHaveCount(0);
  await expect(graph.edge("condition", "true", "transform")).toHaveCount(0);

  // The shortcuts are documented behind `?`.
  await graph.node("condition").focus();
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toContainText("Connect");
});
