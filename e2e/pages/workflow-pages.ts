import { expect, type Page } from "@playwright/test";

export class WorkflowsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/workflows");
    await expect(this.page.getByRole("heading", { name: "Workflows", exact: true })).toBeVisible();
  }

  async create(name: string, template: string) {
    await this.page.goto("/workflows/new");
    await this.page.getByLabel("Name").fill(name);
    await this.page.getByRole("radio", { name: new RegExp(template) }).check();
    await this.page.getByRole("button", { name: "Create workflow" }).click();
    await expect(this.page).toHaveURL(/\/workflows\/wf_[a-z0-9]+\/edit/);
    return this.page.url().match(/\/workflows\/(wf_[a-z0-9]+)/)![1]!;
  }

  row(name: string) {
    return this.page.getByRole("row").filter({ hasText: name });
  }
}

export class DefinitionEditor {
  constructor(private readonly page: Page) {}

  editor() {
    return this.page.getByTestId("json-editor");
  }

  /** Opens the JSON view of a workflow's editor (the Graph view is the default). */
  async goto(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}/edit?view=json`);
    await this.waitLoaded();
  }

  /** The JSON view: switches to it when the editor opened on the (default) Graph view. */
  async waitLoaded() {
    const monaco = this.editor().locator(".monaco-editor");
    const toJson = this.page
      .getByRole("navigation", { name: "Editor view" })
      .getByRole("link", { name: "JSON", exact: true });
    await expect(monaco.or(toJson).first()).toBeVisible();
    if (!(await monaco.isVisible()) && (await toJson.getAttribute("aria-current")) !== "page")
      await toJson.click();
    await expect(monaco).toBeVisible();
  }

  /**
   * Replaces the whole document the way a user pastes it: select all, paste from the clipboard
   * (typed text would be changed by Monaco's auto-closing brackets and auto-indent).
   */
  async replaceText(text: string) {
    await this.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await this.page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await this.editor().locator(".monaco-editor .view-lines").click();
    await this.page.keyboard.press("ControlOrMeta+A");
    await this.page.keyboard.press("ControlOrMeta+V");
  }

  /** The whole document, as copied from Monaco (select all, copy). */
  async readText(): Promise<string> {
    await this.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await this.editor().locator(".monaco-editor .view-lines").click();
    await this.page.keyboard.press("ControlOrMeta+A");
    await this.page.keyboard.press("ControlOrMeta+C");
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  problems() {
    return this.page.getByRole("region", { name: "Problems" });
  }

  async expectSaved() {
    await expect(
      this.page.getByRole("status").filter({ hasText: "All changes saved" }),
    ).toBeVisible();
  }

  publishButton() {
    return this.page.getByRole("button", { name: "Publish…" });
  }

  /** Monaco's completion list (a listbox named "Suggest"). */
  suggestions() {
    return this.page.getByRole("listbox", { name: "Suggest" });
  }

  /** Its rows: "option"s, or "listitem"s when the user agent says Windows (Monaco's choice). */
  suggestionRows() {
    const list = this.suggestions();
    return list.getByRole("option").or(list.getByRole("listitem"));
  }

  /**
   * Opens completion where a new key of the root object goes: a new line after `{`, then `"`
   * (a JSON trigger character). Leaves the document unparsable, so nothing is autosaved.
   */
  async openKeyCompletion() {
    await this.editor().locator(".monaco-editor .view-lines").click();
    await this.page.keyboard.press("ControlOrMeta+Home");
    await this.page.keyboard.press("End");
    await this.page.keyboard.press("Enter");
    await this.page.keyboard.type('"');
    await expect(this.suggestionRows().first()).toBeVisible();
    return this.suggestionRows();
  }

  async publish(bump: "patch" | "minor" | "major" = "patch") {
    await this.page.getByRole("button", { name: "Publish…" }).click();
    const dialog = this.page.getByRole("dialog", { name: "Publish a new version" });
    await dialog
      .getByRole("radio", { name: new RegExp(`^${bump}`) })
      .check()
      .catch(() => undefined);
    await dialog.getByRole("button", { name: /^Publish v/ }).click();
    await expect(dialog).toBeHidden();
  }
}

export class VersionsPage {
  constructor(private readonly page: Page) {}

  async goto(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}/versions`);
    await expect(this.history().getByRole("row").nth(1)).toBeVisible();
  }

  history() {
    return this.page.getByRole("region", { name: "History" });
  }

  /** Picks the two sides of the Compare card by their version labels ("v1.0.0", "Draft"). */
  async compare(from: string, to: string) {
    await this.page.getByLabel("From", { exact: true }).selectOption({ label: from });
    await this.page.getByLabel("To", { exact: true }).selectOption({ label: to });
    await expect(this.page.getByTestId("diff-summary")).toContainText(`${from} → ${to}`);
  }

  /** A link of the workflow's section tabs (Overview, Editor, Versions, Runs, …). */
  tab(name: string) {
    return this.page
      .getByRole("navigation", { name: "Workflow sections" })
      .getByRole("link", { name, exact: true });
  }

  /** The side-by-side Monaco diff of the comparison, once it has rendered. */
  jsonDiff() {
    return this.page.getByTestId("diff-editor").locator(".monaco-diff-editor");
  }
}
