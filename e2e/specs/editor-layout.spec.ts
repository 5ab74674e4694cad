import { expect, test, type Locator, type Page } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { WorkflowsPage } from "../pages/workflow-pages";

// The full-screen editor (issue 26): the canvas takes the window, panels scroll and collapse on
// their own, the mini map stays off the graph, every step icon draws.
test.use({ storageState: OWNER_STATE, viewport: { width: 1440, height: 900 } });

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(l: Locator): Promise<Box> {
  const b = await l.boundingBox();
  expect(b, "laid out").not.toBeNull();
  return b!;
}

/** The document itself never scrolls: everything fits the window. */
async function expectNoPageScroll(page: Page) {
  const { scrollHeight, innerHeight } = await page.evaluate(() => ({
    scrollHeight: document.scrollingElement!.scrollHeight,
    innerHeight: window.innerHeight,
  }));
  expect(scrollHeight).toBeLessThanOrEqual(innerHeight);
}

/** No drawn node's box intersects the mini map's (retried until the fit settles). */
async function expectMiniMapClear(graph: GraphEditorPage) {
  await expect(async () => {
    const map = await box(graph.miniMap());
    const nodes = await graph.nodes().all();
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) {
      const b = await box(n);
      expect(overlaps(b, map), `${await n.getAttribute("data-id")} under the mini map`).toBe(false);
    }
  }).toPass();
}

/** An icon that draws: an svg with a non-empty path and a visible size. */
async function expectIconDrawn(icon: Locator) {
  await expect(icon).toBeVisible();
  const b = await box(icon);
  expect(b.width).toBeGreaterThan(8);
  expect(b.height).toBeGreaterThan(8);
  const d = await icon.locator("path").first().getAttribute("d");
  expect(d ?? "").toMatch(/^[Mm]\S+/);
}

test("a template opens full-window: wide canvas, no page scroll, mini map clear, icons drawn", async ({
  page,
}) => {
  await new WorkflowsPage(page).create(`Layout ${Date.now()}`, "Triage with branches");
  const graph = new GraphEditorPage(page);
  await graph.waitLoaded();
  for (const t of ["Steps", "Inspector", "Problems"] as const)
    await expect(graph.panelToggle(t)).toHaveAttribute("aria-expanded", "true");

  // The canvas gets at least ~70 % of the window's width with both side panels open.
  const canvas = await box(graph.canvas());
  expect(canvas.width).toBeGreaterThanOrEqual(0.7 * 1440);
  expect(canvas.height).toBeGreaterThan(400);
  await expectNoPageScroll(page);

  for (const id of ["classify", "page", "queue", "summary"])
    await expect(graph.node(id)).toBeVisible();
  await expectMiniMapClear(graph);

  // Condition and Sub-workflow drew as empty boxes (text glyphs the fonts lack).
  await expectIconDrawn(graph.node("classify").locator("svg[data-icon]"));
  for (const label of ["Condition", "Sub-workflow", "Transform", "HTTP request"])
    await expectIconDrawn(graph.paletteEntry(label).locator("svg"));

  // Auto-layout fits again, still clear of the mini map.
  await graph.toolbarButton("Auto-layout").click();
  await expectMiniMapClear(graph);
  await expectNoPageScroll(page);
});

test("the inspector scrolls on its own: a long form never moves the canvas", async ({
  page,
  request,
}) => {
  const name = `Long form ${Date.now()}`;
  const res = await trpcMutation(request, "workflow.create", { name });
  const body = (await res.json()) as { result: { data: { json: { id: string } } } };
  const workflowId = body.result.data.json.id;
  // Forty inputs: the workflow panel (shown with nothing selected) lists them all.
  const inputs = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [
      `field_${i}`,
      { type: "string", default: `value ${i}`, description: `Input number ${i}` },
    ]),
  );
  const saved = await trpcMutation(request, "workflow.saveDraft", {
    workflowId,
    definition: {
      schemaVersion: 1,
      name,
      inputs,
      // A reference to a missing step: one error in the Problems drawer.
      steps: [{ id: "done", type: "return", config: { value: "{{ steps.ghost.output.data }}" } }],
    },
  });
  expect(saved.ok()).toBe(true);

  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);
  const inspector = graph.panelBody("inspector");
  await expect(graph.inspector()).toBeVisible();
  await expect(async () => {
    const { scrollHeight, clientHeight } = await inspector.evaluate((el) => ({
      scrollHeight: el.scrollHeight,
      clientHeight: el.clientHeight,
    }));
    expect(scrollHeight).toBeGreaterThan(clientHeight);
  }).toPass();
  await expectNoPageScroll(page);

  // Severity badges are pills of one line's height, not ovals stretched over the row.
  const problems = page.getByRole("region", { name: "Problems" });
  await expect(problems.getByRole("button").filter({ hasText: "ghost" })).toBeVisible();
  const badges = await problems.getByText(/^(error|warning|\d+ errors?|\d+ warnings?)$/).all();
  expect(badges.length).toBeGreaterThanOrEqual(2);
  for (const badge of badges) {
    const b = await box(badge);
    expect(b.height, `"${await badge.textContent()}" height`).toBeLessThanOrEqual(22);
    expect(b.width).toBeGreaterThan(b.height);
  }

  const before = await box(graph.canvas());
  await inspector.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await expect.poll(() => inspector.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  expect(await box(graph.canvas())).toEqual(before);
  await expectNoPageScroll(page);
});

test("panels collapse and expand from the keyboard and stay as left", async ({ page }) => {
  await new WorkflowsPage(page).create(`Panels ${Date.now()}`, "Blank");
  const graph = new GraphEditorPage(page);
  await graph.waitLoaded();
  const wide = (await box(graph.canvas())).width;

  const steps = graph.panelToggle("Steps");
  await steps.focus();
  await page.keyboard.press("Enter");
  await expect(steps).toHaveAttribute("aria-expanded", "false");
  await expect(graph.paletteEntry("Transform")).toBeHidden();

  const inspector = graph.panelToggle("Inspector");
  await inspector.focus();
  await page.keyboard.press("Space");
  await expect(inspector).toHaveAttribute("aria-expanded", "false");
  await expect(graph.inspector()).toBeHidden();

  const problems = graph.panelToggle("Problems");
  await problems.focus();
  await page.keyboard.press("Enter");
  await expect(problems).toHaveAttribute("aria-expanded", "false");
  await expect(graph.panelBody("problems")).toBeHidden();

  // The canvas takes the room the panels gave up.
  await expect.poll(async () => (await box(graph.canvas())).width).toBeGreaterThan(wide + 300);

  // Remembered for this person across reloads.
  await page.reload();
  await graph.waitLoaded();
  for (const t of ["Steps", "Inspector", "Problems"] as const)
    await expect(graph.panelToggle(t)).toHaveAttribute("aria-expanded", "false");

  await graph.panelToggle("Steps").focus();
  await page.keyboard.press("Enter");
  await expect(graph.panelToggle("Steps")).toHaveAttribute("aria-expanded", "true");
  await expect(graph.paletteEntry("Transform")).toBeVisible();
  await graph.panelToggle("Inspector").focus();
  await page.keyboard.press("Enter");
  await expect(graph.inspector()).toBeVisible();
  await graph.panelToggle("Problems").focus();
  await page.keyboard.press("Enter");
  await expect(graph.panelBody("problems")).toBeVisible();
  await expectNoPageScroll(page);
});
