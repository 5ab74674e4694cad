import { expect, type Page } from "@playwright/test";

export class SignInPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/sign-in");
    await expect(this.page.getByRole("heading", { name: "Sign in to Sluice" })).toBeVisible();
  }

  async signIn(email: string, password: string) {
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  /** Signs in and returns the HTTP status of the credentials callback it answered with. */
  async signInForStatus(email: string, password: string): Promise<number> {
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/auth/callback/credentials") && r.request().method() === "POST",
    );
    await this.signIn(email, password);
    return (await answered).status();
  }

  async expectError(text: string | RegExp) {
    await expect(this.page.getByRole("alert").filter({ hasText: text })).toBeVisible();
  }

  /** Expects the lockout message and returns the seconds it asks to wait. */
  async expectThrottled(): Promise<number> {
    const alert = this.page
      .getByRole("alert")
      .filter({ hasText: /Too many attempts — try again in \d+ s/ });
    await expect(alert).toBeVisible();
    return Number(/in (\d+) s/.exec((await alert.textContent()) ?? "")![1]);
  }
}

export class SignUpPage {
  constructor(private readonly page: Page) {}

  async fill({
    name,
    email,
    password,
    workspace,
  }: {
    name: string;
    email?: string;
    password: string;
    workspace?: string;
  }) {
    await this.page.getByLabel("Your name").fill(name);
    if (email !== undefined) await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    if (workspace !== undefined) await this.page.getByLabel("Workspace name").fill(workspace);
    await this.page.getByRole("button", { name: "Create account" }).click();
  }
}

export class Shell {
  constructor(private readonly page: Page) {}

  async expectSignedIn(workspaceName?: string) {
    await expect(
      this.page.getByRole("navigation").getByRole("link", { name: "Workflows" }),
    ).toBeVisible();
    if (workspaceName)
      await expect(this.page.getByRole("complementary", { name: "Main" })).toContainText(
        workspaceName,
      );
  }

  async signOut() {
    // The sidebar's button: the Account page has "Sign out everywhere…" buttons too.
    await this.page
      .getByRole("complementary", { name: "Main" })
      .getByRole("button", { name: "Sign out", exact: true })
      .click();
    await expect(this.page).toHaveURL(/\/sign-in/);
  }
}
