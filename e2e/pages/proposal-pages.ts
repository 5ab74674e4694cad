import { expect, type Locator, type Page } from "@playwright/test";

/** The workspace inbox (/proposals) and a workflow's Proposals tab: the same list. */
export class ProposalListPage {
  constructor(private readonly page: Page) {}

  async gotoInbox() {
    await this.page.goto("/proposals");
    await expect(this.page.getByRole("heading", { name: "Proposals", exact: true })).toBeVisible();
  }

  async gotoWorkflow(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}/proposals`);
    await expect(this.list()).toBeVisible();
  }

  list() {
    return this.page.getByRole("region", { name: "Proposals" });
  }

  row(summary: string): Locator {
    return this.list().getByRole("row").filter({ hasText: summary });
  }

  async open(summary: string) {
    await this.row(summary).getByRole("link", { name: summary }).click();
    await expect(this.page).toHaveURL(/\/proposals\/[^/]+$/);
    const review = new ProposalReviewPage(this.page);
    await expect(review.heading(summary)).toBeVisible();
    return review;
  }

  sidebarBadge() {
    return this.page.getByTestId("proposals-badge");
  }
}

/** The review screen of one proposal. */
export class ProposalReviewPage {
  constructor(private readonly page: Page) {}

  async goto(workflowId: string, proposalId: string) {
    await this.page.goto(`/workflows/${workflowId}/proposals/${proposalId}`);
    await expect(this.page.getByTestId("proposal-review")).toBeVisible();
  }

  heading(summary: string) {
    return this.page.getByRole("heading", { name: summary, level: 2 });
  }

  /** The status badge in the header card (a region named by the proposal's summary). */
  status(summary: string) {
    return this.page.getByRole("region", { name: summary }).locator("[data-status]");
  }

  canvas() {
    return this.page.getByRole("region", { name: "Graph diff" });
  }

  /**
   * A node of the graph diff, found by its accessible name (which states the change in text, then
   * the replay's verdict when the dry run has one for the step).
   */
  node(stepId: string, change: "added" | "removed" | "changed" | "unchanged") {
    return this.canvas().getByRole("button", {
      name: new RegExp(`^Step ${stepId}, .*, ${change}(, \\S+ replay: .*)?$`),
    });
  }

  stepPanel(stepId: string) {
    return this.page.getByRole("region", { name: `Step ${stepId} changes` });
  }

  changeSummary() {
    return this.page.getByRole("list", { name: "Change summary" });
  }

  jsonDiff() {
    return this.page.getByRole("region", { name: "JSON" }).getByTestId("diff-editor");
  }

  /**
   * Waits for the JSON diff editor (it loads on its own, after the page) until both of its text
   * inputs carry their names: Monaco creates them unnamed, the component names them.
   */
  async expectJsonDiffNamed() {
    for (const side of ["before", "after"]) {
      await expect(
        this.jsonDiff().getByRole("textbox", { name: new RegExp(`: ${side}$`) }),
      ).toBeAttached();
    }
  }

  decision() {
    return this.page.getByRole("region", { name: "Decision" });
  }

  async approve(notes: string) {
    const decision = this.decision();
    await decision.getByLabel("Review notes").fill(notes);
    const done = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/proposal.review") && r.request().method() === "POST",
    );
    await decision.getByRole("button", { name: "Approve" }).click();
    expect((await done).ok()).toBe(true);
  }

  async apply(bump: "patch" | "minor" | "major" = "patch") {
    const decision = this.decision();
    await decision.getByLabel("Version").selectOption(bump);
    const done = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/proposal.applyChange") && r.request().method() === "POST",
    );
    await decision.getByRole("button", { name: /^Apply as v/ }).click();
    expect((await done).ok()).toBe(true);
  }

  async rollBack(toVersion: string) {
    await this.decision()
      .getByRole("button", { name: `Roll back to v${toVersion}` })
      .click();
    const dialog = this.page.getByRole("dialog", { name: `Roll back to v${toVersion}?` });
    const done = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/proposal.rollback") && r.request().method() === "POST",
    );
    await dialog.getByRole("button", { name: "Roll back" }).click();
    expect((await done).ok()).toBe(true);
    await expect(dialog).toBeHidden();
  }
}
