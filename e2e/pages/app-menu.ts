import { expect, type Locator, type Page } from "@playwright/test";

/** The shell on a phone: a top bar whose Menu button opens the sidebar's navigation. */
export class AppMenu {
  constructor(private readonly page: Page) {}

  button(): Locator {
    return this.page
      .getByRole("complementary", { name: "Main" })
      .getByRole("button", { name: /^Menu/ });
  }

  nav(): Locator {
    return this.page.getByRole("complementary", { name: "Main" }).getByRole("navigation");
  }

  /** Opens the menu and follows one of its links; the menu closes on the new page. */
  async go(label: string) {
    await this.button().click();
    await expect(this.button()).toHaveAttribute("aria-expanded", "true");
    await this.nav()
      .getByRole("link", { name: new RegExp(`^${label}`) })
      .click();
    await expect(this.nav()).toBeHidden();
    await expect(this.button()).toHaveAttribute("aria-expanded", "false");
  }
}

/** The page never scrolls sideways: nothing is wider than the window. */
export async function expectNoHorizontalScroll(page: Page) {
  await expect
    .poll(() => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth))
    .toBeLessThanOrEqual(0);
}

/** A tap target at least 44 px high (WCAG 2.5.5). */
export async function expectTappable(target: Locator) {
  await expect(target).toBeVisible();
  const box = await target.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
}
