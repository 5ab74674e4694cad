import { expect, type Locator, type Page } from "@playwright/test";

/** The workflow editor's Graph view: palette, canvas, inspector, problems. */
export class GraphEditorPage {
  constructor(private readonly page: Page) {}

  async goto(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}/edit`);
    await this.waitLoaded();
  }

  async waitLoaded() {
    await expect(this.canvas().locator(".react-flow__renderer")).toBeVisible();
  }

  canvas() {
    return this.page.getByTestId("graph-canvas");
  }

  viewLink(name: "Graph" | "JSON") {
    return this.page
      .getByRole("navigation", { name: "Editor view" })
      .getByRole("link", { name, exact: true });
  }

  /** A palette entry ("Transform", "Condition", …). */
  paletteEntry(label: string) {
    return this.page
      .getByRole("complementary", { name: "Step palette" })
      .getByRole("button", { name: `Add ${label}`, exact: true });
  }

  node(id: string): Locator {
    return this.canvas().getByTestId(`rf__node-${id}`);
  }

  /** The step's status in the run shown on the canvas ("Open in editor" from a run page). */
  runStatus(id: string): Locator {
    return this.node(id).locator("[data-run-status]");
  }

  nodes() {
    return this.canvas().locator(".react-flow__node");
  }

  edge(from: string, port: string, to: string): Locator {
    return this.canvas().getByTestId(`rf__edge-${from}:${port}->${to}`);
  }

  /** The node's problem badge (errors make it red). */
  errorBadge(id: string) {
    return this.node(id).locator('[data-severity="error"]');
  }

  toolbarButton(name: string) {
    return this.page.getByRole("toolbar", { name: "Graph tools" }).getByRole("button", { name });
  }

  inspector() {
    return this.page.getByRole("complementary", { name: "Inspector" });
  }

  /** The header button that collapses/expands a panel: "Steps", "Inspector" or "Problems". */
  panelToggle(title: "Steps" | "Inspector" | "Problems") {
    return this.page.getByRole("button", { name: title, exact: true });
  }

  /** A panel's own scroll area. */
  panelBody(panel: "palette" | "inspector" | "problems") {
    return this.page.getByTestId(`${panel}-panel-body`);
  }

  miniMap() {
    return this.canvas().getByRole("img", { name: "Mini map" });
  }

  /** Drags a palette entry onto the canvas, at a point relative to the canvas's top-left. */
  async dropFromPalette(label: string, at: { x: number; y: number }) {
    const box = await this.canvas().boundingBox();
    expect(box, "the canvas is laid out").not.toBeNull();
    // A point off the canvas would drop on the inspector and wait there until the test times out.
    expect(at.x, "drop point inside the canvas").toBeLessThan(box!.width);
    expect(at.y, "drop point inside the canvas").toBeLessThan(box!.height);
    await this.paletteEntry(label).dragTo(this.canvas(), { targetPosition: at });
  }

  /** Draws an edge with the mouse: from a source port's handle to the target's input handle. */
  async connect(from: string, port: string, to: string) {
    const source = this.node(from).locator(`.react-flow__handle[data-handleid="${port}"]`);
    const target = this.node(to).locator('.react-flow__handle[data-handleid="in"]');
    const s = (await source.boundingBox())!;
    await this.page.mouse.move(s.x + s.width / 2, s.y + s.height / 2);
    await this.page.mouse.down();
    // The target's box is read once the drag has started (a re-render may have moved it), and
    // the pointer settles on it before the release so React Flow sees the hovered handle.
    const t = (await target.boundingBox())!;
    await this.page.mouse.move(t.x + t.width / 2, t.y + t.height / 2, { steps: 8 });
    await this.page.mouse.move(t.x + t.width / 2 + 1, t.y + t.height / 2, { steps: 2 });
    await this.page.mouse.up();
  }

  /** Draws an edge with the Connect picker (select the source, press C, choose port and target). */
  async connectWithPicker(from: string, port: string, to: string) {
    await this.node(from).focus();
    await this.page.keyboard.press("Enter");
    await this.page.keyboard.press("c");
    const dialog = this.connectDialog(from);
    await dialog.getByLabel("From port").selectOption(port);
    await dialog.getByLabel("To step").selectOption(to);
    await this.page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
  }

  async expectSaved() {
    await expect(
      this.page.getByRole("status").filter({ hasText: "All changes saved" }),
    ).toBeVisible();
  }

  connectDialog(from: string) {
    return this.page.getByRole("dialog", { name: `Connect “${from}”` });
  }
}
