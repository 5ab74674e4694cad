import { expect, type Page } from "@playwright/test";

export class MembersPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/members");
    await expect(this.page.getByRole("heading", { name: "Members", exact: true })).toBeVisible();
  }

  /** Creates an invitation and returns the link shown to the admin. */
  async invite(email: string, role: string): Promise<string> {
    const form = this.page.getByRole("region", { name: "Invite a member" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption(role);
    await form.getByRole("button", { name: "Create invitation" }).click();
    const link = this.page.getByTestId("invitation-link");
    await expect(link).toContainText("/invite/inv_");
    return (await link.textContent())!.trim();
  }

  memberRow(email: string) {
    return this.page.getByRole("row").filter({ hasText: email });
  }
}

export class ApiTokensPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/api-tokens");
  }

  async create(name: string, role: string): Promise<string> {
    const form = this.page.getByRole("region", { name: "Create an API token" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Role").selectOption(role);
    await form.getByRole("button", { name: "Create token" }).click();
    const dialog = this.page.getByRole("dialog");
    const token = (await dialog.getByTestId("new-token").textContent())!.trim();
    expect(token).toMatch(/^slu_/);
    await dialog.getByRole("button", { name: "Done" }).click();
    return token;
  }

  async revoke(name: string) {
    await this.page
      .getByRole("row")
      .filter({ hasText: name })
      .getByRole("button", { name: "Revoke" })
      .click();
    await this.page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();
    await expect(this.page.getByRole("row").filter({ hasText: name })).toContainText("revoked");
  }
}

export class SecretsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/secrets");
    await expect(this.page.getByRole("heading", { name: "Secrets", exact: true })).toBeVisible();
  }

  row(name: string) {
    return this.page.getByRole("row").filter({ hasText: name });
  }

  async create(name: string, value: string) {
    const form = this.page.getByRole("region", { name: "Add a secret" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Value").fill(value);
    await form.getByRole("button", { name: "Save secret" }).click();
    await expect(this.row(name)).toBeVisible();
  }

  async updateValue(name: string, value: string) {
    await this.row(name)
      .getByRole("button", { name: `Update the value of ${name}` })
      .click();
    const dialog = this.page.getByRole("dialog", { name: `New value for ${name}` });
    await dialog.getByLabel("New value").fill(value);
    await dialog.getByLabel("New value").press("Enter");
    await expect(dialog).toBeHidden();
  }

  async delete(name: string) {
    await this.row(name)
      .getByRole("button", { name: `Delete ${name}` })
      .click();
    await this.page.getByRole("dialog").getByRole("button", { name: "Delete secret" }).click();
    await expect(this.row(name)).toHaveCount(0);
  }
}

export class PoliciesPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/policies");
    await expect(this.page.getByRole("heading", { name: "Allowed private hosts" })).toBeVisible();
  }

  async addHost(entry: string) {
    const input = this.page.getByLabel("Add a host");
    await input.fill(entry);
    await input.press("Enter");
  }

  hosts() {
    return this.page.getByRole("list", { name: "Allowed private hosts" });
  }

  /** A step-type checkbox of one policy section ("Forbidden step types", "Required approvals"). */
  checkbox(section: string, name: RegExp) {
    return this.page.getByRole("region", { name: section }).getByRole("checkbox", { name });
  }

  async save() {
    await this.page.getByRole("button", { name: "Save policies" }).click();
    await expect(this.page.getByText("Policies saved")).toBeVisible();
  }
}

export class IntegrationsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/integrations");
    await expect(this.page.getByRole("heading", { name: "LLM endpoint" })).toBeVisible();
  }

  llm() {
    return this.page.getByRole("region", { name: "LLM endpoint" });
  }

  smtp() {
    return this.page.getByRole("region", { name: "Email (SMTP)" });
  }

  mcp() {
    return this.page.getByRole("region", { name: "MCP servers" });
  }

  /** Adds an MCP server through the "Add an MCP server" form. */
  async addMcpServer(name: string, url: string) {
    const form = this.mcp().getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Server name").fill(name);
    await form.getByLabel("Server URL").fill(url);
    await form.getByRole("button", { name: "Add server" }).click();
  }
}

/** Settings → Quotas: usage bars, the plan and per-limit overrides. */
export class QuotasPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/settings/quotas");
    await expect(this.page.getByRole("heading", { name: "Usage", exact: true })).toBeVisible();
  }

  /** The usage bar of a limit, named by its label ("Runs per month"). */
  meter(label: string) {
    return this.page.getByRole("progressbar", { name: label });
  }

  planBadge() {
    return this.page.getByRole("region", { name: "Usage" }).locator(".badge");
  }

  async choosePlan(label: string) {
    await this.page.getByRole("combobox", { name: "Plan", exact: true }).selectOption({ label });
  }

  override(label: string) {
    return this.page.getByRole("spinbutton", { name: `${label} override` });
  }

  async save() {
    await this.page.getByRole("button", { name: "Save quotas" }).click();
    await expect(this.page.getByText("Quotas saved")).toBeVisible();
  }
}
