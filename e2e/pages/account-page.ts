import { expect, type Locator, type Page } from "@playwright/test";

/** The account page: the Sessions and Change password cards. */
export class AccountPage {
  readonly sessions: Locator;
  readonly password: Locator;

  constructor(private readonly page: Page) {
    this.sessions = page.getByRole("region", { name: "Sessions" });
    this.password = page.getByRole("region", { name: "Change password" });
  }

  async goto() {
    await this.page.goto("/account");
    await expect(this.page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();
  }

  /** Session rows (the header row excluded). */
  sessionRows(): Locator {
    return this.sessions.getByRole("table", { name: "Active sessions" }).locator("tbody tr");
  }

  async expectSessions(count: number) {
    await expect(this.sessionRows()).toHaveCount(count);
    await expect(this.sessions.getByText("This session", { exact: true })).toHaveCount(1);
  }

  /** Signs out the only session other than this one, confirming in the dialog. */
  async signOutOtherSession() {
    await this.sessions.getByRole("button", { name: /^Sign out this session/ }).click();
    const dialog = this.page.getByRole("dialog", { name: "Sign out this session?" });
    await dialog.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(dialog).toBeHidden();
  }

  async changePassword(current: string, next: string) {
    await this.password.getByLabel("Current password").fill(current);
    await this.password.getByLabel("New password", { exact: true }).fill(next);
    await this.password.getByLabel("Repeat new password").fill(next);
    await this.password.getByRole("button", { name: "Change password" }).click();
  }
}
