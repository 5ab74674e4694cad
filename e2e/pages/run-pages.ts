import { expect, type Locator, type Page } from "@playwright/test";

export class RunPage {
  constructor(private readonly p: Page) {}

  page() {
    return this.p;
  }

  async goto(runId: string) {
    await this.p.goto(`/runs/${runId}`);
    await expect(this.heading()).toContainText(runId);
  }

  heading() {
    return this.p.getByRole("heading", { level: 1 });
  }

  runId() {
    return this.p.url().match(/\/runs\/([^/?#]+)/)![1]!;
  }

  async expectStatus(status: string, timeout = 30_000) {
    await expect(this.heading().locator("[data-status]")).toHaveAttribute("data-status", status, {
      timeout,
    });
  }

  timeline() {
    return this.p.getByRole("table", { name: "Step timeline" });
  }

  stepRow(stepId: string): Locator {
    return this.timeline().locator(`tr[data-step="${stepId}"]`);
  }

  async openStep(stepId: string) {
    await this.stepRow(stepId).getByRole("button", { name: stepId, exact: true }).click();
    const details = this.p.getByRole("region", { name: `Step ${stepId}` });
    await expect(details).toBeVisible();
    return details;
  }

  gates() {
    return this.p.getByRole("region", { name: "Waiting for approval" });
  }

  async decide(approve: boolean, reason: string) {
    const gates = this.gates();
    await gates.getByLabel("Reason").fill(reason);
    await gates.getByRole("button", { name: approve ? "Approve" : "Reject" }).click();
  }

  async cancel() {
    await this.p.getByRole("button", { name: "Cancel run" }).click();
    const dialog = this.p.getByRole("dialog", { name: "Cancel this run?" });
    await dialog.getByRole("button", { name: "Cancel run" }).click();
  }

  output() {
    return this.p.getByRole("region", { name: "Output" });
  }

  /** The header's repository pin ("repository <ref> @ <sha>"), titled with the URL. */
  repository(url: string) {
    return this.p.getByTitle(url, { exact: true });
  }

  /** The run's duration in the summary (grows while the run is active). */
  duration() {
    return this.p.getByTestId("run-duration");
  }

  /** The engine's execution id in the summary (a link to its dashboard on a real Inngest). */
  execution() {
    return this.p.getByTestId("run-execution");
  }

  /** The relative time shown for "Created" in the summary. */
  createdTime() {
    return this.p.getByRole("region", { name: "Run summary" }).locator("time").first();
  }

  graph() {
    return this.p.getByTestId("run-graph");
  }

  /** The React Flow canvas (role "application") inside the graph card. */
  graphCanvas() {
    return this.graph().getByRole("application");
  }

  /** Every step node (a group named "Step <name> (<type>), <status>"). */
  graphNodes() {
    return this.graph().getByRole("group", { name: /^Step / });
  }

  /** The zoom / fit-view buttons of the graph. */
  graphControls() {
    return this.graph().getByRole("button", { name: /^(Zoom In|Zoom Out|Fit View)$/ });
  }
}

export class ApprovalsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/approvals");
    await expect(this.page.getByRole("heading", { name: "Approvals", exact: true })).toBeVisible();
  }

  gate(prompt: string) {
    return this.page.getByRole("article", { name: `Approval: ${prompt}` });
  }

  async decide(prompt: string, approve: boolean, reason: string) {
    const gate = this.gate(prompt);
    await gate.getByLabel("Reason").fill(reason);
    await gate.getByRole("button", { name: approve ? "Approve" : "Reject" }).click();
  }

  /** A field of the gate's approval form (labelled by its name, "*" when required). */
  formField(prompt: string, name: string) {
    return this.gate(prompt).getByLabel(new RegExp(`^${name}( \\*)?$`));
  }

  async sortBy(label: string) {
    await this.page.getByLabel("Sort by").selectOption({ label });
  }

  /** The dialog a deep link (/approvals?open=<id>) opens. */
  openedDialog() {
    return this.page.getByRole("dialog", { name: /approval/i });
  }
}

export class RunForm {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByRole("button", { name: "Run…" }).click();
    await expect(this.dialog()).toBeVisible();
  }

  dialog() {
    return this.page.getByRole("dialog", { name: /^Run v/ });
  }

  field(name: string) {
    return this.dialog().getByLabel(new RegExp(`^${name}( \\*)?$`));
  }

  repositoryRef() {
    return this.dialog().getByLabel("Repository ref");
  }

  async submit() {
    await this.dialog().getByRole("button", { name: "Start run" }).click();
  }
}

export class RunsListPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/runs");
    await expect(this.list()).toBeVisible();
  }

  list() {
    return this.page.getByRole("region", { name: "Runs" });
  }

  runLink(runId: string) {
    return this.list().getByRole("link", { name: runId });
  }

  /** A filter's select; its label wraps it, so the accessible name starts with the label. */
  filter(label: string) {
    return this.page
      .getByRole("search", { name: "Filter runs" })
      .getByRole("combobox", { name: new RegExp(`^${label}`) });
  }

  row(runId: string) {
    return this.list()
      .getByRole("row")
      .filter({ has: this.page.getByRole("link", { name: runId }) });
  }
}

/** The sidebar's count of approvals waiting for the signed-in person. */
export function approvalsBadge(page: Page) {
  return page.getByTestId("approvals-badge");
}
