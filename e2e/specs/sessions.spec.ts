import { expect, test, type Browser, type BrowserContext } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { OWNER_STATE } from "../fixtures/users";
import { AccountPage } from "../pages/account-page";
import { Shell, SignInPage } from "../pages/auth-pages";

// The owner (stored session) only invites; each test signs a fresh member in twice, so revoking
// never touches the session other specs share.
test.use({ storageState: OWNER_STATE });

const PASSWORD = "editor-password-1"; // what addMember signs the member up with

/** A second browser (fresh context) signed in as the same member. */
async function signInElsewhere(browser: Browser, email: string, password = PASSWORD) {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(email, password);
  await new Shell(page).expectSignedIn();
  return { context, page };
}

async function expectSignedOutOnNextNavigation(context: BrowserContext) {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto("/workflows");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fworkflows/);
}

test("revoke another session from the account page; that browser is signed out", async ({
  browser,
  request,
}) => {
  const { context: laptop, email } = await addMember(request, browser, {
    name: "Sam Sessions",
    role: "editor",
  });
  const phone = await signInElsewhere(browser, email);

  const page = await laptop.newPage();
  await page.goto("/workflows");
  await page.getByRole("link", { name: "Account" }).click();
  const account = new AccountPage(page);
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();
  await account.expectSessions(2);

  await account.signOutOtherSession();
  await account.expectSessions(1);
  await expectSignedOutOnNextNavigation(phone.context);
  // This browser is still signed in.
  await page.goto("/workflows");
  await new Shell(page).expectSignedIn();
  await laptop.close();
  await phone.context.close();
});

test("changing the password signs out the other browser, not this one", async ({
  browser,
  request,
}) => {
  const { context: laptop, email } = await addMember(request, browser, {
    name: "Pat Password",
    role: "editor",
  });
  const phone = await signInElsewhere(browser, email);
  const page = await laptop.newPage();
  const account = new AccountPage(page);
  await account.goto();
  await account.expectSessions(2);

  await account.changePassword("not-my-password", "brand-new-password-2");
  await expect(account.password.getByText("The current password is not correct")).toBeVisible();
  await account.changePassword(PASSWORD, "brand-new-password-2");
  await expect(page.getByText("Password changed; 1 other session signed out")).toBeVisible();
  await account.expectSessions(1);

  await expectSignedOutOnNextNavigation(phone.context);
  await page.goto("/workflows");
  await new Shell(page).expectSignedIn();
  // The new password works for the next sign-in.
  const again = await signInElsewhere(browser, email, "brand-new-password-2");
  await again.context.close();
  await laptop.close();
  await phone.context.close();
});
