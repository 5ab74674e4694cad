import { expect, type Locator, type Page } from "@playwright/test";

/** "My queue": tasks and approvals waiting for the signed-in member. */
export class QueuePage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/queue");
    await expect(this.page.getByRole("heading", { name: "My queue", exact: true })).toBeVisible();
  }

  /** The sidebar link (with its count badge). */
  navLink(): Locator {
    return this.page.getByRole("navigation").getByRole("link", { name: /My queue/ });
  }

  item(kind: "Task" | "Approval", title: string | RegExp): Locator {
    return this.page.getByRole("listitem", {
      name:
        typeof title === "string" ? `${kind}: ${title}` : new RegExp(`^${kind}: ${title.source}`),
    });
  }

  /** Opens a task in place and returns its panel. */
  async openTask(title: string): Promise<Locator> {
    const item = this.item("Task", title);
    await item.getByRole("button", { name: "Open" }).click();
    const panel = item.getByRole("region", { name: /^Task / });
    await expect(panel).toBeVisible();
    return panel;
  }
}
