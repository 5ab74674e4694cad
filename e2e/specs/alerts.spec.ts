import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishedWorkflow } from "../pages/trigger-pages";
import { WorkflowAlertsCard, WorkspaceAlertsPage } from "../pages/alerts-pages";

test.use({ storageState: OWNER_STATE });

test("workspace alert defaults: channels and thresholds are saved, a bad address is named", async ({
  page,
}) => {
  const alerts = new WorkspaceAlertsPage(page);
  await alerts.goto();
  await alerts.channels.add("Email", "not-an-address");
  const refused = await alerts.save();
  expect(refused.ok()).toBe(false);
  await expect(alerts.form.getByText("An email address")).toBeVisible();

  await alerts.channels.remove(1);
  await alerts.channels.add("Webhook", "https://alerts.example.com/sluice");
  await alerts.form.getByLabel("Window (minutes)").fill("30");
  await alerts.form.getByLabel("Gate age (hours)").fill("6");
  expect((await alerts.save()).ok()).toBe(true);
  await expect(page.getByText("Alert settings saved")).toBeVisible();

  await page.reload();
  await expect(alerts.channels.value(1)).toHaveValue("https://alerts.example.com/sluice");
  await expect(alerts.form.getByLabel("Window (minutes)")).toHaveValue("30");
  await expect(alerts.form.getByLabel("Gate age (hours)")).toHaveValue("6");

  // The specs share this workspace: take the unreachable channel away again, or every failed run
  // of later specs would alert it (and retry) in the background.
  await alerts.channels.remove(1);
  expect((await alerts.save()).ok()).toBe(true);
  await page.reload();
  await expect(alerts.channels.value(1)).toHaveCount(0);
});

test("a workflow's alerts: its own channels and an error workflow; a missing secret is refused", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  const workflowId = await publishedWorkflow(request, `Alerting ${stamp}`);
  await publishedWorkflow(request, `Error handler ${stamp}`);
  const card = new WorkflowAlertsCard(page);
  await card.goto(workflowId);
  await expect(card.inherit()).toBeChecked();

  await card.inherit().uncheck();
  await card.channels.add("Slack", "NO_SUCH_SECRET");
  const refused = await card.save();
  expect(refused.ok()).toBe(false);
  await expect(card.card.getByText(/Secret NO_SUCH_SECRET does not exist/)).toBeVisible();

  await card.channels.remove(1);
  await card.channels.add("Webhook", "https://alerts.example.com/only-this-one");
  await card.errorWorkflow().selectOption({ label: `Error handler ${stamp}` });
  expect((await card.save()).ok()).toBe(true);
  await expect(page.getByText("Alert settings saved")).toBeVisible();

  await page.reload();
  await expect(card.inherit()).not.toBeChecked();
  await expect(card.channels.value(1)).toHaveValue("https://alerts.example.com/only-this-one");
  await expect(card.errorWorkflow()).toHaveValue(/^wf_/);
  // The workflow itself is not offered as its own error workflow.
  await expect(card.errorWorkflow().getByRole("option", { name: `Alerting ${stamp}` })).toHaveCount(
    0,
  );
});
