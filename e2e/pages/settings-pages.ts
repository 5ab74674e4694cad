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
