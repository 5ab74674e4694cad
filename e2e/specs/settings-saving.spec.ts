import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, trpcQuery } from "../fixtures/workflows";
import { MembersPage, PoliciesPage } from "../pages/settings-pages";

/**
 * Settings has one way to save (issue 26 item 6): forms save with their Save button, show that
 * they hold unsaved edits and ask before those are thrown away; actions that change someone's
 * access or publish a version ask first, and a role change can be undone.
 */
test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);
const nextPatch = (v: string) => {
  const [major, minor, patch] = v.split(".").map(Number);
  return `${major}.${minor}.${patch! + 1}`;
};

test("a private host added but not saved is marked so, and leaving the page asks first", async ({
  page,
}) => {
  const host = `ci-${stamp()}.internal`;
  const policies = new PoliciesPage(page);
  await policies.goto();
  await expect(page.getByRole("status").filter({ hasText: "Unsaved changes" })).toHaveCount(0);
  await policies.addHost(host);
  await expect(policies.hosts().getByRole("listitem").filter({ hasText: host })).toContainText(
    "not saved yet",
  );
  await expect(page.getByRole("status").filter({ hasText: "Unsaved changes" })).toBeVisible();

  // Another settings section, through the app's own link: asked, and staying keeps the host.
  const members = page
    .getByRole("navigation", { name: "Settings sections" })
    .getByRole("link", { name: "Members" });
  await members.click();
  const leave = page.getByRole("dialog", { name: "Leave without saving?" });
  await expect(leave).toContainText("unsaved policy changes");
  await leave.getByRole("button", { name: "Cancel" }).click();
  await expect(leave).toBeHidden();
  await expect(page).toHaveURL(/\/settings\/policies$/);
  await expect(policies.hosts()).toContainText(host);

  // Closing the tab asks through the browser.
  const asked = page.waitForEvent("dialog");
  await page.close({ runBeforeUnload: true });
  const prompt = await asked;
  expect(prompt.type()).toBe("beforeunload");
  await prompt.dismiss();
  await expect(policies.hosts()).toContainText(host);

  // Discarding leaves, and the host was never saved.
  await members.click();
  await leave.getByRole("button", { name: "Discard and leave" }).click();
  await expect(page).toHaveURL(/\/settings\/members$/);
  await policies.goto();
  await expect(page.getByText(host)).toHaveCount(0);

  // Saved, the host loses its mark and leaving no longer asks.
  await policies.addHost(host);
  await policies.save();
  await expect(policies.hosts().getByRole("listitem").filter({ hasText: host })).not.toContainText(
    "not saved yet",
  );
  await expect(page.getByRole("status").filter({ hasText: "Unsaved changes" })).toHaveCount(0);
  await policies
    .hosts()
    .getByRole("button", { name: `Remove ${host}` })
    .click();
  await page.getByRole("button", { name: "Save policies" }).click();
  // Saved once the form is clean again (the first save's toast may still be showing).
  await expect(page.getByText("None: only public addresses are reachable.")).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Unsaved changes" })).toHaveCount(0);
  await members.click();
  await expect(page).toHaveURL(/\/settings\/members$/);
});

test("a member's role change asks first, and Undo in its toast restores the previous role", async ({
  page,
  request,
  browser,
}) => {
  const name = `Rhea Role ${stamp()}`;
  const { context, email } = await addMember(request, browser, { name, role: "editor" });
  await context.close();
  const members = new MembersPage(page);
  await members.goto();
  const role = members.memberRow(email).getByRole("combobox", { name: `Role of ${name}` });
  await expect(role).toHaveValue("editor");

  // Cancel: nothing changes.
  await role.selectOption("approver");
  const confirm = page.getByRole("dialog", { name: `Change ${name}'s role to approver?` });
  await expect(confirm).toContainText("goes from editor to approver at once");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(role).toHaveValue("editor");

  // Confirmed: changed, with Undo in the toast.
  await role.selectOption("approver");
  await confirm.getByRole("button", { name: "Change role" }).click();
  const toast = page
    .getByRole("status")
    .filter({ hasText: `${name} is now approver (was editor)` });
  await expect(toast).toBeVisible();
  await expect(role).toHaveValue("approver");
  await toast.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText(`${name} is editor again`)).toBeVisible();
  await expect(role).toHaveValue("editor");
  await page.reload();
  await expect(
    members.memberRow(email).getByRole("combobox", { name: `Role of ${name}` }),
  ).toHaveValue("editor");
});

test("Allow change proposals names the version it publishes before it publishes it", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Switch ${stamp()}`,
    steps: [{ id: "done", type: "return", config: { value: 1 } }],
  });
  const current = async () =>
    (
      await trpcQuery<{ currentVersion: { version: string } }>(request, "workflow.get", {
        workflowId,
      })
    ).currentVersion.version;
  const before = await current();
  const next = nextPatch(before);
  await page.goto(`/workflows/${workflowId}`);
  const toggle = page.getByRole("switch", { name: "Allow change proposals" });
  await expect(toggle).not.toBeChecked();

  await toggle.click();
  const confirm = page.getByRole("dialog", {
    name: `Allow change proposals and publish v${next}?`,
  });
  await expect(confirm).toContainText(`This publishes v${next}: v${before} with`);
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(toggle).not.toBeChecked();
  expect(await current()).toBe(before);

  await toggle.click();
  await confirm.getByRole("button", { name: `Publish v${next}` }).click();
  await expect(page.getByText(`Proposals allowed: published v${next}`)).toBeVisible();
  await expect(toggle).toBeChecked();
  expect(await current()).toBe(next);
});
