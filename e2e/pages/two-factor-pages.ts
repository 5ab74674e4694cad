import { expect, type Locator, type Page } from "@playwright/test";
import { generate } from "otplib";

/** The current authenticator code for a key, or the next step's (a code signs in only once). */
export function totpCode(secret: string, { next = false } = {}) {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + (next ? 30 : 0) });
}

/** The account page's two-factor card, and the required-enrolment page (same set-up steps). */
export class TwoFactorSetup {
  constructor(private readonly page: Page) {}

  card(): Locator {
    return this.page.getByRole("region", { name: "Two-factor sign-in" });
  }

  async gotoAccount() {
    await this.page.goto("/account");
    await expect(this.page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
  }

  /** Runs the set-up: reads the manual key, confirms with a computed code. Returns both. */
  async enrol(): Promise<{ secret: string; recoveryCodes: string[] }> {
    await this.page.getByRole("button", { name: "Set up two-factor" }).click();
    await expect(this.page.getByRole("img", { name: /QR code/ })).toBeVisible();
    const secret = (await this.page.getByLabel("Setup key").inputValue()).replace(/\s+/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await this.page.getByLabel("Authentication code").fill(await totpCode(secret));
    await this.page.getByRole("button", { name: "Turn on two-factor" }).click();
    const list = this.page.getByRole("list", { name: "Recovery codes" });
    await expect(list.getByRole("listitem")).toHaveCount(10);
    const recoveryCodes = (await list.getByRole("listitem").allInnerTexts()).map((c) => c.trim());
    await expect(this.page.getByRole("button", { name: "Copy codes to clipboard" })).toBeVisible();
    await expect(this.page.getByRole("link", { name: "Download" })).toBeVisible();
    await this.page.getByRole("button", { name: "I have saved my codes" }).click();
    return { secret, recoveryCodes };
  }
}

/** The sign-in form's second step. */
export class TwoFactorSignInStep {
  constructor(private readonly page: Page) {}

  async expectShown() {
    await expect(this.page.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
    await expect(this.page.getByLabel("Authentication code")).toBeFocused();
    await expect(this.page.getByLabel("Authentication code")).toHaveAttribute(
      "autocomplete",
      "one-time-code",
    );
  }

  async enterCode(code: string) {
    await this.page.getByLabel("Authentication code").fill(code);
    await this.page.getByRole("button", { name: "Verify" }).click();
  }

  async enterRecoveryCode(code: string) {
    await this.page.getByRole("button", { name: "Use a recovery code" }).click();
    await this.page.getByLabel("Recovery code").fill(code);
    await this.page.getByRole("button", { name: "Verify" }).click();
  }
}
