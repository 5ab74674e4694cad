import { expect, type Page } from "@playwright/test";

/** The Ctrl+K command palette (components/command-palette). */
export class CommandPalette {
  constructor(private readonly page: Page) {}

  dialog() {
    return this.page.getByRole("dialog", { name: "Command palette" });
  }

  input() {
    return this.dialog().getByRole("combobox");
  }

  option(name: string | RegExp) {
    return this.dialog().getByRole("option", { name });
  }

  async openWithKeyboard() {
    await this.page.keyboard.press("Control+K");
    await expect(this.dialog()).toBeVisible();
    await expect(this.input()).toBeFocused();
  }

  /** Types the text and waits until `first` is the selected (Enter-able) option. */
  async search(text: string, first: string | RegExp) {
    await this.input().fill(text);
    await expect(this.option(first)).toHaveAttribute("aria-selected", "true");
  }
}
