import { expect, type Page } from "@playwright/test";

/** The operations page (admins): charts, the per-workflow table, the range switch. */
export class OperationsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    const answered = this.page.waitForResponse((r) => r.url().includes("operations.overview"));
    await this.page.goto("/operations");
    await expect(this.page.getByRole("heading", { name: "Operations", level: 1 })).toBeVisible();
    return answered;
  }

  /** A chart by its title ("Runs per hour", "Webhook rejects per hour", "Duration per workflow …"). */
  chart(title: string | RegExp) {
    return this.page.getByRole("figure", { name: title });
  }

  /** The drawn bars of a chart (recharts' rectangles). */
  bars(title: string | RegExp) {
    return this.chart(title).locator(".recharts-bar-rectangle");
  }

  get table() {
    return this.page.getByRole("region", { name: "Per workflow" }).getByRole("table");
  }

  workflowRow(name: string) {
    return this.table.getByRole("row").filter({ hasText: name });
  }

  range(label: "Last 24 hours" | "Last 7 days") {
    return this.page.getByRole("group", { name: "Range" }).getByRole("button", { name: label });
  }

  async pickRange(label: "Last 24 hours" | "Last 7 days") {
    const answered = this.page.waitForResponse((r) => r.url().includes("operations.overview"));
    await this.range(label).click();
    await answered;
    await expect(this.range(label)).toHaveAttribute("aria-pressed", "true");
  }

  sidebarLink() {
    return this.page.getByRole("complementary", { name: "Main" }).getByRole("link", {
      name: "Operations",
    });
  }
}
