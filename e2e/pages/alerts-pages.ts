import { expect, type Locator, type Page } from "@playwright/test";

/** The channel rows of an alerts form (ChannelsEditor). */
class Channels {
  constructor(private readonly scope: Locator) {}

  async add(kind: "Slack" | "Webhook" | "Email", value: string) {
    await this.scope.getByRole("button", { name: "Add channel" }).click();
    const n = await this.scope.getByRole("button", { name: /^Remove channel/ }).count();
    await this.scope.getByLabel(`Channel ${n} kind`).selectOption({ label: kind });
    await this.scope.getByLabel(new RegExp(`^Channel ${n} (secret|url|address)`)).fill(value);
  }

  async remove(n: number) {
    await this.scope.getByRole("button", { name: `Remove channel ${n}` }).click();
  }

  value(n: number) {
    return this.scope.getByLabel(new RegExp(`^Channel ${n} (secret|url|address)`));
  }
}

export class WorkspaceAlertsPage {
  readonly form: Locator;
  readonly channels: Channels;
  constructor(private readonly page: Page) {
    this.form = page.getByRole("region", { name: "Alerts", exact: true });
    this.channels = new Channels(this.form);
  }

  async goto() {
    await this.page.goto("/settings/alerts");
    await expect(this.page.getByRole("heading", { name: "Alerts", exact: true })).toBeVisible();
  }

  async save() {
    const saved = this.page.waitForResponse((r) => r.url().includes("alert.updateWorkspace"));
    await this.form.getByRole("button", { name: "Save alert settings" }).click();
    return saved;
  }
}

export class WorkflowAlertsCard {
  readonly card: Locator;
  readonly channels: Channels;
  constructor(private readonly page: Page) {
    this.card = page.getByRole("region", { name: "Alerts and error workflow" });
    this.channels = new Channels(this.card);
  }

  async goto(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}`);
    await expect(this.card).toBeVisible();
  }

  inherit() {
    return this.card.getByRole("checkbox", { name: /Use the workspace's alert channels/ });
  }

  errorWorkflow() {
    return this.card.getByLabel("Error workflow");
  }

  async save() {
    const saved = this.page.waitForResponse((r) => r.url().includes("alert.updateWorkflow"));
    await this.card.getByRole("button", { name: "Save alert settings" }).click();
    return saved;
  }
}
