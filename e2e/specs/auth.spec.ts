import { expect, test } from "@playwright/test";
import { OWNER } from "../fixtures/users";
import { Shell, SignInPage } from "../pages/auth-pages";

test("sign out, then sign in with a wrong and then the right password", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(OWNER.email, "definitely-wrong");
  await signIn.expectError("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in/);

  await signIn.signIn(OWNER.email, OWNER.password);
  await expect(page).toHaveURL(/\/workflows/);
  const shell = new Shell(page);
  await shell.expectSignedIn(OWNER.workspace);

  await shell.signOut();
  // Signed out: the dashboard sends us back to sign-in, and remembers where we were going.
  await page.goto("/settings/members");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fsettings%2Fmembers/);
  await signIn.signIn(OWNER.email, OWNER.password);
  await expect(page).toHaveURL(/\/settings\/members/);
});

test("sign-up is closed after the first user unless invited", async ({ page }) => {
  await page.goto("/sign-up");
  await expect(page.getByRole("heading", { name: "Invitation only" })).toBeVisible();
});
