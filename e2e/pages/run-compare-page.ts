import { expect, type Page } from "@playwright/test";

/** /runs/<id>/compare: two runs side by side, step by step. */
export class RunComparePage {
  constructor(private readonly p: Page) {}

  async expectLoaded() {
    await expect(this.p.getByRole("heading", { name: "Compare runs", level: 1 })).toBeVisible();
    await expect(this.summary()).toBeVisible({ timeout: 30_000 });
  }

  summary() {
    return this.p.getByRole("region", { name: "Summary" });
  }

  side(label: "A" | "B") {
    return this.p.getByLabel(`Run ${label}`);
  }

  steps() {
    return this.p.getByRole("region", { name: "Steps compared" });
  }

  /** A step's collapsed row (a disclosure: its summary line names the path and the verdict). */
  step(path: string) {
    return this.steps()
      .locator("details")
      .filter({ has: this.p.locator("summary", { hasText: path }) });
  }

  async openStep(path: string) {
    const row = this.step(path);
    await row.locator("summary").click();
    return row;
  }

  async compareWith(runId: string) {
    await this.p.getByLabel("Or any run id").fill(runId);
    await this.p.getByRole("button", { name: "Compare", exact: true }).click();
  }
}
