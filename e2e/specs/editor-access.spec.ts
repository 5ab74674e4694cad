import { expect, test, type Locator, type Page } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow } from "../fixtures/workflows";
import { GraphEditorPage } from "../pages/graph-editor-page";

// The editor for keyboard users and small screens (issue #26.8, #26.9, #26.3's mini map).
test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

/** A branch with a labelled edge: check → (true) big, check → (false) small. */
function branching(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: { amount: { type: "number", required: true } },
    steps: [
      { id: "check", type: "condition", config: { condition: { ref: "input.amount", gt: 100 } } },
      { id: "big", type: "transform", config: { value: "big" } },
      { id: "small", type: "transform", config: { value: "small" } },
    ],
    edges: [
      { from: "check", port: "true", to: "big" },
      { from: "check", port: "false", to: "small" },
    ],
  };
}

type Rgb = [number, number, number];
const rgbOf = (css: string): Rgb => {
  const m = css.match(/rgba?\((\d+),\s*(\d+),\s*(\d+)/);
  expect(m, `a colour, got ${css}`).not.toBeNull();
  return [Number(m![1]), Number(m![2]), Number(m![3])];
};
/** WCAG 2 contrast ratio of two sRGB colours. */
function contrast(a: Rgb, b: Rgb): number {
  const lum = (c: Rgb) => {
    const [r, g, bl] = c.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as Rgb;
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Presses Tab until the focused element matches `selector` (at most `max` presses). */
async function tabUntil(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => !!document.activeElement?.matches(s), selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** A 2px solid ring of at least 3:1 against the canvas background. */
async function expectFocusRing(ringed: Locator, canvas: Locator) {
  const ring = await ringed.evaluate((el) => {
    const s = getComputedStyle(el);
    return { style: s.outlineStyle, width: s.outlineWidth, color: s.outlineColor };
  });
  expect(ring.style).toBe("solid");
  expect(ring.width).toBe("2px");
  const background = await canvas.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(contrast(rgbOf(ring.color), rgbOf(background))).toBeGreaterThanOrEqual(3);
}

test.describe("desktop", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("Tab reaches a node and an edge, and each shows a visible focus ring", async ({
    page,
    request,
  }) => {
    const workflowId = await publishWorkflow(request, branching(`Focus ${stamp()}`));
    const graph = new GraphEditorPage(page);
    await graph.goto(workflowId);
    await expect(graph.node("small")).toBeVisible();

    // From the last toolbar button into the canvas, keyboard only.
    await graph.toolbarButton("Keyboard shortcuts").focus();
    await tabUntil(page, ".react-flow__node");
    const node = page.locator(".react-flow__node:focus");
    await expect(node).toHaveCount(1);
    await expectFocusRing(node.locator("[data-testid^='step-node-']"), graph.canvas());

    await graph.toolbarButton("Keyboard shortcuts").focus();
    await tabUntil(page, ".react-flow__edge");
    const edge = page.locator(".react-flow__edge:focus");
    await expect(edge).toHaveCount(1);
    await expectFocusRing(edge, graph.canvas());
    // The edge's own stroke thickens too (an outline alone can sit far from a diagonal edge).
    const width = await edge
      .locator("path.react-flow__edge-path")
      .evaluate((el) => parseFloat(getComputedStyle(el).strokeWidth));
    expect(width).toBeGreaterThanOrEqual(3);
  });

  test("the mini map toggles from the keyboard, stays off the nodes and is remembered", async ({
    page,
    request,
  }) => {
    const workflowId = await publishWorkflow(request, branching(`Mini map ${stamp()}`));
    const graph = new GraphEditorPage(page);
    await graph.goto(workflowId);
    const toggle = graph.toolbarButton("Mini map");
    await expect(toggle).toHaveAttribute("aria-pressed", "true");
    await expect(graph.miniMap()).toBeVisible();

    await toggle.focus();
    await page.keyboard.press("Enter");
    await expect(toggle).toHaveAttribute("aria-pressed", "false");
    await expect(graph.miniMap()).toHaveCount(0);

    await page.reload();
    await graph.waitLoaded();
    await expect(graph.toolbarButton("Mini map")).toHaveAttribute("aria-pressed", "false");
    await expect(graph.miniMap()).toHaveCount(0);

    await graph.toolbarButton("Mini map").focus();
    await page.keyboard.press("Space");
    await expect(graph.miniMap()).toBeVisible();
    // Turning it on fits the graph clear of it.
    await expect(async () => {
      const map = (await graph.miniMap().boundingBox())!;
      for (const n of await graph.nodes().all()) {
        const b = (await n.boundingBox())!;
        const overlaps =
          b.x < map.x + map.width &&
          map.x < b.x + b.width &&
          b.y < map.y + map.height &&
          map.y < b.y + b.height;
        expect(overlaps, `${await n.getAttribute("data-id")} under the mini map`).toBe(false);
      }
    }).toPass();
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the editor opens read-only and says why; the canvas still pans", async ({
    page,
    request,
  }) => {
    const workflowId = await publishWorkflow(request, branching(`Phone ${stamp()}`));
    const graph = new GraphEditorPage(page);
    await graph.goto(workflowId);
    await expect(
      page
        .getByRole("status")
        .filter({ hasText: "Editing needs a wider screen; showing the workflow read-only" }),
    ).toBeVisible();
    await expect(graph.node("check")).toBeVisible();

    // Nothing to edit with: no palette, no inspector, no Publish or Save.
    await expect(page.getByRole("region", { name: "Steps" })).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Inspector" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Publish/ })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Save draft" })).toHaveCount(0);
    await expect(graph.toolbarButton("Auto-layout")).toHaveCount(0);

    // The canvas fits the window and pans with a drag on the empty pane.
    const canvas = (await graph.canvas().boundingBox())!;
    expect(canvas.x + canvas.width).toBeLessThanOrEqual(390);
    const viewport = graph.canvas().locator(".react-flow__viewport");
    const before = await viewport.getAttribute("style");
    const start = { x: canvas.x + 12, y: canvas.y + 12 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x + 80, start.y + 60, { steps: 6 });
    await page.mouse.up();
    await expect(viewport).not.toHaveAttribute("style", before ?? "");
  });
});
