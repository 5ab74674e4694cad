import { expect, test } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER, OWNER_STATE, uniqueEmail } from "../fixtures/users";
import { Shell, SignUpPage } from "../pages/auth-pages";
import { MembersPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

test("invite a viewer, who accepts and cannot edit", async ({ page, browser }) => {
  const members = new MembersPage(page);
  await members.goto();
  const email = uniqueEmail("viewer");
  const link = await members.invite(email, "viewer");
  await expect(page.getByRole("region", { name: "Open invitations" })).toContainText(email);

  // The invitee opens the link in a fresh browser (no session) and creates their account.
  const viewerCtx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerCtx.newPage();
  await viewer.goto(new URL(link).pathname);
  await expect(viewer.getByRole("heading", { name: `Join ${OWNER.workspace}` })).toBeVisible();
  await expect(viewer.getByLabel("Email")).toHaveValue(email);
  await new SignUpPage(viewer).fill({ name: "Vic Viewer", password: "viewer-password-1" });
  await expect(viewer).toHaveURL(/\/workflows/);
  await new Shell(viewer).expectSignedIn(OWNER.workspace);

  // The admin sees the new member; the link cannot be used twice.
  await members.goto();
  await expect(members.memberRow(email)).toContainText("viewer");
  await viewer.goto(new URL(link).pathname);
  await expect(viewer.getByRole("heading", { name: "Invitation accepted" })).toBeVisible();

  // As a viewer: no invite form; personal API tokens capped at their own role; and the server
  // refuses edits outright.
  await viewer.goto("/settings/members");
  await expect(viewer.getByRole("heading", { name: "Members", exact: true })).toBeVisible();
  await expect(viewer.getByRole("region", { name: "Invite a member" })).toHaveCount(0);
  await viewer.goto("/settings/api-tokens");
  await expect(viewer.getByRole("heading", { name: "Create an API token" })).toBeVisible();
  await expect(viewer.getByRole("heading", { name: "Your tokens" })).toBeVisible();
  const roleOptions = await viewer
    .getByLabel("Role")
    .locator("option:not([disabled])")
    .allTextContents();
  expect(roleOptions.map((o) => o.trim().toLowerCase())).toEqual(["viewer"]);
  const refused = await trpcMutation(viewer.request, "invitation.create", {
    email: uniqueEmail("x"),
    role: "viewer",
  });
  expect(refused.status()).toBe(403);
  expect(JSON.stringify(await refused.json())).toContain("admin role or higher");
  const rename = await trpcMutation(viewer.request, "workspace.rename", { name: "Hijacked" });
  expect(rename.status()).toBe(403);
  await viewerCtx.close();
});
