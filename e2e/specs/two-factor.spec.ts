import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { Shell, SignInPage } from "../pages/auth-pages";
import { TwoFactorSetup, TwoFactorSignInStep, totpCode } from "../pages/two-factor-pages";

// The owner's session invites the people these tests sign in as; the owner never enrols, so the
// shared owner account other specs use keeps signing in with its password alone.
test.use({ storageState: OWNER_STATE });

test("enrol two-factor, then sign in with a code and with a recovery code once", async ({
  request,
  browser,
}) => {
  const { context, email } = await addMember(request, browser, {
    name: "Tess Totp",
    role: "editor",
  });
  const password = "editor-password-1";
  const page = await context.newPage();
  const setup = new TwoFactorSetup(page);
  await setup.gotoAccount();
  await expect(setup.card().getByText("Off", { exact: true })).toBeVisible();
  const { secret, recoveryCodes } = await setup.enrol();
  await expect(setup.card().getByText("On", { exact: true })).toBeVisible();
  await expect(setup.card()).toContainText("10 of 10 recovery codes unused");

  const shell = new Shell(page);
  const signInPage = new SignInPage(page);
  const step = new TwoFactorSignInStep(page);
  await shell.signOut();

  // Password, then a wrong code (refused), then the next step's code (the current one was spent
  // by the enrolment).
  await signInPage.signIn(email, password);
  await step.expectShown();
  await step.enterCode("000000");
  await signInPage.expectError(/not valid/);
  await step.enterCode(await totpCode(secret, { next: true }));
  await expect(page).toHaveURL(/\/workflows/);
  await shell.expectSignedIn(OWNER.workspace);
  await shell.signOut();

  // A recovery code works once.
  await signInPage.signIn(email, password);
  await step.expectShown();
  await step.enterRecoveryCode(recoveryCodes[0]!);
  await expect(page).toHaveURL(/\/workflows/);
  await shell.expectSignedIn();
  await setup.gotoAccount();
  await expect(setup.card()).toContainText("9 of 10 recovery codes unused");
  await shell.signOut();

  await signInPage.signIn(email, password);
  await step.expectShown();
  await step.enterRecoveryCode(recoveryCodes[0]!);
  await signInPage.expectError(/not valid, or was already used/);
  await expect(page).toHaveURL(/\/sign-in/);
  await context.close();
});

test("a workspace that requires two-factor makes a member enrol at their next sign-in", async ({
  page,
  request,
  browser,
}) => {
  // Invited before the rule is on, so the member has a password session without two-factor.
  const { context, email } = await addMember(request, browser, {
    name: "Gus Gated",
    role: "viewer",
  });
  try {
    await page.goto("/settings/general");
    const requirement = page.getByRole("checkbox", {
      name: "Require two-factor sign-in for members",
    });
    // Controlled by the saved value: it turns checked once the server has stored the rule.
    await requirement.click();
    // It acts at once, so it asks first.
    await page
      .getByRole("dialog", { name: "Require two-factor sign-in?" })
      .getByRole("button", { name: "Require two-factor" })
      .click();
    await expect(page.getByText("Two-factor is now required")).toBeVisible();
    await expect(requirement).toBeChecked();
    await page.reload();
    await expect(requirement).toBeChecked();

    const member = await context.newPage();
    await member.goto("/workflows");
    const shell = new Shell(member);
    await shell.signOut();
    await new SignInPage(member).signIn(email, "viewer-password-1");
    await expect(member).toHaveURL(/\/account\/two-factor/);
    await expect(member.getByRole("heading", { name: "Set up two-factor sign-in" })).toBeVisible();
    await expect(member.getByText(`${OWNER.workspace} requires two-factor sign-in`)).toBeVisible();

    // Everything else stays locked: pages send the member back, workspace procedures refuse.
    await member.goto("/workflows");
    await expect(member).toHaveURL(/\/account\/two-factor/);
    const refused = await member.request.get("/api/trpc/workflow.list");
    expect(refused.status()).toBe(403);

    await new TwoFactorSetup(member).enrol();
    await expect(member).toHaveURL(/\/workflows/);
    await shell.expectSignedIn(OWNER.workspace);
  } finally {
    // Other specs sign in as the owner, who has no authenticator.
    const off = await trpcMutation(request, "twoFactor.setWorkspaceRequirement", {
      required: false,
    });
    expect(off.ok()).toBe(true);
    await context.close();
  }
});
