import { expect, type Page } from "@playwright/test";

/** The replay evidence on a proposal's review screen (Dry run card and graph, issue #29). */
export class ProposalReplayPanel {
  constructor(private readonly page: Page) {}

  async goto(workflowId: string, proposalId: string) {
    await this.page.goto(`/workflows/${workflowId}/proposals/${proposalId}`);
    await expect(this.page.getByTestId("proposal-review")).toBeVisible();
  }

  level() {
    return this.page.getByTestId("verification-level");
  }

  reasons() {
    return this.page.getByRole("list", { name: "Verification reasons" });
  }

  /** One replayed run's table: a row per step with its verdict and diff. */
  stepRow(runId: string, stepPath: string) {
    return this.page
      .getByRole("table", { name: `Steps of run ${runId}` })
      .getByRole("row")
      .filter({ has: this.page.getByRole("cell", { name: stepPath, exact: true }) });
  }

  /** A graph node whose accessible name carries its replay verdict in words. */
  node(stepId: string, verdict: string) {
    return this.page
      .getByRole("region", { name: "Graph diff" })
      .getByRole("button", { name: new RegExp(`^Step ${stepId}, .*, ${verdict}$`) });
  }
}
