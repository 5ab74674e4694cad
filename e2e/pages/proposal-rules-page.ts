import { expect, type Page } from "@playwright/test";

/** Settings → Proposal rules: the CEL rule list, its preview and save. */
export class ProposalRulesPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/proposal-rules");
    await expect(
      this.page.getByRole("link", { name: "Proposal rules", exact: true }),
    ).toHaveAttribute("aria-current", "page");
    await expect(this.page.getByRole("heading", { name: "Proposal rules" })).toBeVisible();
  }

  get rules() {
    return this.page.getByRole("listitem").filter({ has: this.page.getByLabel("Expression") });
  }

  rule(n: number) {
    return this.page.getByRole("listitem", { name: `Rule ${n}` });
  }

  async addPreset(name: string) {
    await this.page.getByRole("button", { name: `Add preset: ${name}` }).click();
  }

  async addRule(rule: { name: string; expression: string; effect?: string }) {
    const before = await this.rules.count();
    await this.page.getByRole("button", { name: "Add rule" }).click();
    const added = this.rule(before + 1);
    await added.getByLabel("Name").fill(rule.name);
    await added.getByLabel("Expression").fill(rule.expression);
    if (rule.effect) await added.getByLabel("Effect").selectOption({ label: rule.effect });
  }

  async preview() {
    const answered = this.page.waitForResponse((r) =>
      r.url().includes("/api/trpc/proposalRules.preview"),
    );
    await this.page.getByRole("button", { name: "Preview on recent proposals" }).click();
    await answered;
  }

  async save() {
    const answered = this.page.waitForResponse((r) =>
      r.url().includes("/api/trpc/proposalRules.update"),
    );
    await this.page.getByRole("button", { name: "Save rules" }).click();
    await answered;
  }

  get previewTable() {
    return this.page.getByRole("table", { name: "Rules that would fire" });
  }

  /** The form's error (scoped: Next's route announcer is an alert too). */
  get error() {
    return this.page.getByRole("region", { name: "Proposal rules" }).getByRole("alert");
  }
}

/** Settings → Audit: the "Verify history" panel. */
export class HistoryVerifyPanel {
  constructor(private readonly page: Page) {}

  get region() {
    return this.page.getByRole("region", { name: "Tamper-evident history" });
  }

  async verify() {
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/audit.verify") && r.ok(),
    );
    await this.region.getByRole("button", { name: "Verify history" }).click();
    await answered;
  }

  get verdict() {
    return this.region.getByRole("status");
  }
}
