import { expect, type Page } from "@playwright/test";

type Next = { link?: string; text?: RegExp };

/**
 * A brand-new workspace of the signed-in owner (created through the shell's "New workspace"
 * dialog, which switches to it), and the lists' empty and loading states in it.
 */
export class EmptyWorkspace {
  constructor(private readonly page: Page) {}

  async create(name: string) {
    await this.page.goto("/workflows");
    await this.page.getByRole("button", { name: "New workspace", exact: true }).click();
    const dialog = this.page.getByRole("dialog");
    await dialog.getByLabel("Workspace name").fill(name);
    // Creating switches to the workspace with a full load of /workflows (enterWorkspace): wait for
    // that load, whose server render of the shell names the new workspace. (A reload of our own
    // here raced it: net::ERR_ABORTED once in CI.)
    const entered = this.page.waitForEvent("load");
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    await entered;
    await expect(
      this.page.getByLabel("Workspace", { exact: true }).locator("option:checked"),
    ).toHaveText(name);
  }

  /** The empty state of the list at `path`: its heading, and the next step it offers. */
  async expectEmpty(path: string, title: string, next?: Next) {
    await this.page.goto(path);
    await this.expectState(title, next);
  }

  /** The same on another tab of the current page. */
  async expectEmptyTab(tab: string, title: string, next?: Next) {
    await this.page.getByRole("tab", { name: tab }).click();
    await this.expectState(title, next);
  }

  private async expectState(title: string, next?: Next) {
    const heading = this.page.getByRole("heading", { name: title, exact: true });
    await expect(heading).toBeVisible();
    // The empty state is the heading's box (components/ui/states.tsx): its text and action.
    const state = heading.locator("xpath=..");
    if (next?.link) await expect(state.getByRole("link", { name: next.link })).toBeVisible();
    if (next?.text) await expect(state).toContainText(next.text);
  }

  /**
   * Holds the tRPC request for `procedure` until the list's loading state (a busy region named
   * `label`) has been seen, then lets it through.
   */
  async expectLoading(path: string, procedure: string, label: string) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const pattern = new RegExp(`/api/trpc/[^?]*\\b${procedure.replace(".", "\\.")}\\b`);
    await this.page.route(pattern, async (route) => {
      await held;
      await route.continue();
    });
    await this.page.goto(path);
    const busy = this.page.getByLabel(label, { exact: true });
    await expect(busy).toBeVisible();
    await expect(busy).toHaveAttribute("aria-busy", "true");
    release();
    await expect(busy).toHaveCount(0);
    await this.page.unroute(pattern);
  }
}
