import { expect, test } from "@playwright/test";
import { OWNER, OWNER_STATE } from "../fixtures/users";
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

test.describe("workspaces", () => {
  test.use({ storageState: OWNER_STATE });

  test("create a second workspace and switch between them", async ({ page }) => {
    await page.goto("/workflows");
    await page.getByRole("button", { name: "New workspace", exact: true }).click();
    const name = `Second ${Date.now()}`;
    await page.getByRole("dialog").getByLabel("Workspace name").fill(name);
    await page.getByRole("dialog").getByRole("button", { name: "Create workspace" }).click();
    const switcher = page.getByLabel("Workspace", { exact: true });
    await expect(switcher).toHaveValue(/ws_/);
    await expect(switcher.locator("option:checked")).toHaveText(name);
    // The new workspace is empty and separate.
    await expect(page.getByRole("heading", { name: "No workflows yet" })).toBeVisible();
    await switcher.selectOption({ label: OWNER.workspace });
    await expect(switcher.locator("option:checked")).toHaveText(OWNER.workspace);
  });
});

test("the app's icons are served from public/ (no 404 for /favicon.ico)", async ({
  page,
  request,
}) => {
  for (const [path, type] of [
    ["/favicon.ico", /image\/(x-icon|vnd\.microsoft\.icon)/],
    ["/icon.svg", /image\/svg\+xml/],
    ["/apple-touch-icon.png", /image\/png/],
  ] as const) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"]).toMatch(type);
  }
  await page.goto("/sign-in");
  await expect(page.locator('link[rel="icon"][href="/favicon.ico"]')).toHaveCount(1);
});
