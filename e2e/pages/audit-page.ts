import { expect, type Download, type Locator, type Page } from "@playwright/test";

/** Settings → Audit: the filtered log and its NDJSON export. */
export class AuditPage {
  constructor(private readonly page: Page) {}

  async goto(query = "") {
    await this.page.goto(`/settings/audit${query}`);
    await expect(this.page.getByRole("link", { name: "Audit", exact: true })).toHaveAttribute(
      "aria-current",
      "page",
    );
  }

  get filters() {
    return this.page.getByRole("search", { name: "Filter audit log" });
  }

  get log() {
    return this.page.getByRole("region", { name: "Audit log" });
  }

  /** Data rows (the header row excluded). */
  get entries() {
    return this.log.getByRole("row").filter({ has: this.page.getByRole("cell") });
  }

  row(text: string) {
    return this.entries.filter({ hasText: text });
  }

  /** The "From" cell of a row: client address and user agent. */
  from(row: Locator) {
    return row.getByRole("cell").nth(4);
  }

  /** Applies an action filter and waits for the list answered for it. */
  async filterByAction(action: string) {
    await this.filters.getByLabel("Action").fill(action);
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/audit.list") && r.ok(),
    );
    await this.filters.getByRole("button", { name: "Apply filters" }).click();
    await answered;
    await expect(this.page).toHaveURL(new RegExp(`action=${encodeURIComponent(action)}`));
  }

  async exportNdjson(): Promise<Download> {
    const download = this.page.waitForEvent("download");
    await this.filters.getByRole("button", { name: "Export NDJSON" }).click();
    return download;
  }
}
