import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun } from "../fixtures/workflows";
import { CommandPalette } from "../pages/command-palette";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);
const definition = (name: string) => ({
  schemaVersion: 1,
  name,
  steps: [{ id: "shape", type: "transform", config: { value: 1 } }],
});

test("Ctrl+K finds a workflow by part of its name and Enter opens it", async ({
  page,
  request,
}) => {
  const name = `Palette target ${stamp()}`;
  const workflowId = await publishWorkflow(request, definition(name));
  await page.goto("/runs");
  const palette = new CommandPalette(page);
  await palette.openWithKeyboard();
  await palette.search(name.slice("Palette ".length), new RegExp(name));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/workflows/${workflowId}$`));
  await expect(palette.dialog()).toBeHidden();
});

test("typing a run id jumps to that run's page", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, definition(`Palette run ${stamp()}`));
  const runId = await startRun(request, workflowId);
  await page.goto("/workflows");
  const palette = new CommandPalette(page);
  await palette.openWithKeyboard();
  await palette.search(runId, new RegExp(runId));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(runId);
});

test("says when nothing matches, reaches actions by keyboard, Esc returns focus", async ({
  page,
}) => {
  await page.goto("/workflows");
  const palette = new CommandPalette(page);
  const button = page.getByRole("button", { name: /Search or jump to/ });
  await button.click();
  await expect(palette.input()).toBeFocused();
  const nothing = `zz-nothing-${stamp()}`;
  await palette.input().fill(nothing);
  await expect(palette.dialog()).toContainText(`No workflows or runs match "${nothing}"`);
  await page.keyboard.press("Escape");
  await expect(palette.dialog()).toBeHidden();
  await expect(button).toBeFocused();

  // Opened from a focused nav link: arrows move through the actions, Esc goes back to the link.
  const runsLink = page
    .getByRole("complementary", { name: "Main" })
    .getByRole("link", { name: "Runs", exact: true });
  await runsLink.focus();
  await palette.openWithKeyboard();
  await expect(palette.option("New workflow")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Escape");
  await expect(runsLink).toBeFocused();

  await palette.openWithKeyboard();
  await expect(palette.option("New workflow")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowDown");
  await expect(palette.option("Go to workflows")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowDown");
  await expect(palette.option("Go to runs")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/runs$/);
});

test("the first Tab stop skips to main content, and on the editor to the canvas toolbar", async ({
  page,
  request,
}) => {
  await page.goto("/workflows");
  await expect(page.getByRole("heading", { name: "Workflows", exact: true })).toBeVisible();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();

  const workflowId = await publishWorkflow(request, definition(`Palette editor ${stamp()}`));
  await page.goto(`/workflows/${workflowId}/edit`);
  const toolbar = page.getByRole("toolbar", { name: "Graph tools" });
  await expect(toolbar).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(skip).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to canvas toolbar" })).toBeFocused();
  await page.keyboard.press("Enter");
  // Three key presses from the top of the page to a toolbar button.
  await expect(toolbar.getByRole("button", { name: "Workflow", exact: true })).toBeFocused();
});
