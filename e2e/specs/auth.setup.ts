import { expect, test as setup } from "@playwright/test";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { Shell, SignUpPage } from "../pages/auth-pages";

setup("the first visitor signs up and owns a new workspace", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-up/);
  await expect(page.getByRole("heading", { name: "Set up Sluice" })).toBeVisible();
  const signUp = new SignUpPage(page);
  // Bad input first: every problem is named next to its field.
  await signUp.fill({ name: "", email: "not-an-email", password: "short" });
  await expect(page.getByText("Enter a valid email address")).toBeVisible();
  await expect(page.getByText("Password must be at least 10 characters")).toBeVisible();
  await signUp.fill({ ...OWNER });
  await expect(page).toHaveURL(/\/workflows/);
  await new Shell(page).expectSignedIn(OWNER.workspace);
  await page.context().storageState({ path: OWNER_STATE });
});
