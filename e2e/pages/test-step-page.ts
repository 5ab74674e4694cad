import { expect, type Locator, type Page } from "@playwright/test";
import { GraphEditorPage } from "./graph-editor-page";

/** "Test this step" / "Test up to here" in the editor (docs/runs.md "Testing while building"). */
export class TestStepPage {
  readonly graph: GraphEditorPage;
  constructor(private readonly page: Page) {
    this.graph = new GraphEditorPage(page);
  }

  testSection(): Locator {
    return this.graph.inspector().getByRole("region", { name: "Test" });
  }

  dialog(): Locator {
    return this.page.getByRole("dialog");
  }

  inputField(): Locator {
    return this.dialog().getByRole("textbox", { name: /Input \(JSON\)/ });
  }

  /** Selects the step on the canvas and opens the test dialog. */
  async open(stepId: string, mode: "Test this step" | "Test up to here" = "Test this step") {
    await this.graph.node(stepId).click();
    await this.testSection().getByRole("button", { name: mode }).click();
    await expect(this.dialog()).toBeVisible();
  }

  async run() {
    const started = this.page.waitForResponse(
      (r) => r.url().includes("workflow.testStep") && r.request().method() === "POST",
    );
    await this.dialog().getByRole("button", { name: "Run test" }).click();
    expect((await started).ok()).toBe(true);
    await expect(this.dialog()).toBeHidden();
  }

  /** The step's output (or error) in the inspector. */
  output(): Locator {
    return this.testSection().getByRole("group", { name: "Test output" });
  }

  badge(stepId: string): Locator {
    return this.graph.node(stepId).getByTestId(`test-output-${stepId}`);
  }
}
