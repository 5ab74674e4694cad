import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { expect, test } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE, uniqueEmail } from "../fixtures/users";
import { SignUpPage } from "../pages/auth-pages";
import { MembersPage } from "../pages/settings-pages";
import { publishWorkflow } from "../fixtures/workflows";
import { RunPage } from "../pages/run-pages";
import { publishedWorkflow, TriggersPage } from "../pages/trigger-pages";

test.use({ storageState: OWNER_STATE });

test("webhook: create in the UI, signed request starts a run, a bad signature is rejected and listed", async ({
  page,
  request,
}) => {
  const workflowId = await publishedWorkflow(request, `Hooked ${Date.now()}`);
  const triggers = new TriggersPage(page);
  await triggers.goto(workflowId);
  await expect(page.getByRole("heading", { name: "No triggers yet" })).toBeVisible();

  const { url, secret } = await triggers.createWebhook("Shop orders");
  expect(url).toMatch(/\/api\/hooks\/[a-z0-9-]+$/);
  expect(secret).toMatch(/^whsec_/);
  await expect(triggers.row("Shop orders")).toContainText(url);

  // A correctly signed delivery: 202 with the run id.
  const body = JSON.stringify({ who: "playwright" });
  const sig = createHmac("sha256", secret).update(body).digest("hex");
  const ok = await request.post(url, {
    data: body,
    headers: { "content-type": "application/json", "X-Signature": `sha256=${sig}` },
  });
  expect(ok.status(), await ok.text()).toBe(202);
  const { runId } = (await ok.json()) as { runId: string };
  expect(runId).toBeTruthy();

  // A wrongly signed one: 401 with a reason, recorded as rejected.
  const bad = await request.post(url, {
    data: body,
    headers: {
      "content-type": "application/json",
      "X-Signature": `sha256=${createHmac("sha256", "whsec_wrong").update(body).digest("hex")}`,
    },
  });
  expect(bad.status()).toBe(401);

  await triggers.open("Shop orders");
  const deliveries = triggers.deliveries();
  const accepted = deliveries.getByRole("row").filter({ hasText: "accepted" });
  await expect(accepted).toHaveCount(1);
  await expect(accepted.getByRole("link", { name: `Run ${runId}` })).toHaveAttribute(
    "href",
    `/runs/${runId}`,
  );
  await expect(accepted).toContainText("202");
  const rejected = deliveries.getByRole("row").filter({ hasText: "rejected" });
  await expect(rejected).toHaveCount(1);
  await expect(rejected).toContainText("401");
  await expect(rejected).toContainText(/signature/i);
  // The sanitized request is one click away.
  await rejected.getByRole("button", { name: "Show request" }).click();
  await expect(deliveries.getByLabel("Request")).toContainText("content-type");

  // Rotate with a grace period: the new secret is shown once and works at once.
  await page.getByRole("button", { name: "Rotate secret" }).click();
  const rotate = page.getByRole("dialog", { name: "Rotate the signing secret" });
  await rotate.getByLabel("Grace period").selectOption({ label: "1 hour" });
  await rotate.getByRole("button", { name: "Rotate secret" }).click();
  const rotated = page.getByRole("dialog", { name: "Secret rotated" });
  const newSecret = (await rotated.getByTestId("webhook-secret").textContent())!.trim();
  expect(newSecret).toMatch(/^whsec_/);
  expect(newSecret).not.toBe(secret);
  await rotated.getByRole("button", { name: "I have stored the secret" }).click();
  await expect(page.getByText("Previous secret")).toBeVisible();
  const again = await request.post(url, {
    data: body,
    headers: {
      "content-type": "application/json",
      "X-Signature": `sha256=${createHmac("sha256", newSecret).update(body).digest("hex")}`,
    },
  });
  expect(again.status()).toBe(202);
  await expect(deliveries.getByRole("row").filter({ hasText: "accepted" })).toHaveCount(2);
});

test("webhook mapping: declared inputs are the targets, the preset hides generic HMAC fields, and the sample shown after creation starts a run with defaults", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Releases ${Date.now()}`,
    inputs: {
      version: { type: "string", required: true },
      env: { type: "string", default: "staging", enum: ["staging", "production"] },
      note: { type: "string" },
    },
    steps: [{ id: "echo", type: "return", config: { value: "{{ input }}" } }],
  });
  const triggers = new TriggersPage(page);
  await triggers.goto(workflowId);
  const form = await triggers.startWebhook("Release hook");
  // GitHub, Stripe and Standard Webhooks sign their own way: the generic fields go away.
  const preset = form.getByLabel("Signature verification");
  for (const other of ["GitHub (X-Hub-Signature-256)", "Stripe (Stripe-Signature)"]) {
    await preset.selectOption({ label: other });
    await expect(form.getByLabel("Signature header")).toBeHidden();
    await expect(form.getByLabel("Delivery id header")).toBeHidden();
  }
  await preset.selectOption({ label: "Generic HMAC-SHA256" });
  await expect(form.getByLabel("Signature header")).toBeVisible();
  // The workflow's declared inputs are offered as mapping targets.
  await expect(form.getByRole("button", { name: "Map version" })).toBeVisible();
  await triggers.mapInput("version", "$.release.version");
  await triggers.mapInput("env", "$.env");
  await triggers.mapInput("note", "query.note");
  await expect(form.getByRole("button", { name: /^Map / })).toHaveCount(0);
  const { sample } = await triggers.submitWebhook();
  expect(sample).toContain('# Optional: env ← $.env (default "staging").');

  // The sample, pasted into a shell as shown (curl and openssl for real), is accepted.
  const answer = JSON.parse(
    execFileSync("bash", ["-c", sample], { encoding: "utf8", timeout: 20_000 }),
  ) as { runId?: string };
  expect(answer.runId, JSON.stringify(answer)).toMatch(/^run_/);
  const run = new RunPage(page);
  await run.goto(answer.runId!);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText('"version": "example version"');
  await expect(run.output()).toContainText('"env": "staging"');
});

test("schedule: the form previews the next 10 fire times and flags invalid cron at the field", async ({
  page,
  request,
}) => {
  const workflowId = await publishedWorkflow(request, `Scheduled ${Date.now()}`);
  const triggers = new TriggersPage(page);
  await triggers.goto(workflowId);
  await page.getByRole("button", { name: "New schedule" }).click();
  const form = triggers.formDialog("schedule");
  // Field-level errors: the name is required.
  await form.getByRole("button", { name: "Create trigger" }).click();
  await expect(form.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("Give the trigger a name")).toBeVisible();
  await form.getByLabel("Name", { exact: true }).fill("Nightly");
  // A new schedule follows the workflow's zone (UTC here), never the browser's.
  await expect(form.getByLabel("Time zone")).toHaveValue("");
  await form.getByLabel("Cron expression").fill("not a cron");
  await expect(form.getByText("No preview until the schedule is valid.")).toBeVisible();
  await expect(form.getByLabel("Cron expression")).toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("Cron expression").fill("30 2 * * *");
  await form.getByLabel("Time zone").fill("Europe/Berlin");
  const times = form.getByRole("list", { name: "Next fire times" });
  await expect(times.getByRole("listitem")).toHaveCount(10);
  await expect(times.getByRole("listitem").first()).toContainText("02:30");
  // DST: 02:30 on March Sundays in New York falls into the spring-forward gap once a year.
  await form.getByLabel("Cron expression").fill("30 2 * 3 0");
  await form.getByLabel("Time zone").fill("America/New_York");
  await expect(times.getByRole("listitem")).toHaveCount(10);
  const gap = times.getByRole("listitem").filter({ hasText: "DST gap" }).first();
  await expect(gap).toContainText("03:00");
  await expect(gap).toContainText("02:30 does not exist");
  // Look ahead from a date (the autumn repeat, months away), page on, and come back to now.
  await form.getByLabel("Cron expression").fill("30 1 * * *");
  await form.getByLabel("Preview from (UTC date)").fill("2030-11-02");
  await expect(times.getByRole("listitem").first()).toContainText("2030-11-02 01:30");
  await expect(times.getByRole("listitem").filter({ hasText: "DST repeat" })).toHaveCount(1);
  await form.getByRole("button", { name: "Later" }).click();
  await expect(times.getByRole("listitem").first()).toContainText("2030-11-12 01:30");
  await form.getByRole("button", { name: "From now" }).click();
  await expect(times.getByRole("listitem").first()).not.toContainText("2030-");
  await form.getByLabel("Cron expression").fill("30 2 * 3 0");
  await form.getByRole("button", { name: "Create trigger" }).click();
  await expect(form).toBeHidden();
  await expect(triggers.row("Nightly")).toContainText(
    "30 2 * 3 0 · America/New_York (overrides the workflow's UTC)",
  );

  // Edit the cron on the detail page, then fire it by hand: the dialog links to the run.
  await triggers.open("Nightly");
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const edit = page.getByRole("dialog", { name: "Edit “Nightly”" });
  await edit.getByLabel("Cron expression").fill("0 3 * * *");
  await expect(edit.getByRole("list", { name: "Next fire times" })).toContainText("03:00");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByText("0 3 * * * · America/New_York (overrides")).toBeVisible();
  await page.getByRole("button", { name: "Fire now" }).click();
  const fire = page.getByRole("dialog", { name: "Fire now" });
  await fire.getByRole("button", { name: "Start run" }).click();
  await expect(fire.getByRole("link", { name: /open run run_/ })).toHaveAttribute(
    "href",
    /^\/runs\/run_/,
  );
});

test("viewers see triggers and deliveries but no buttons that change them", async ({
  page,
  request,
  browser,
}) => {
  const workflowId = await publishedWorkflow(request, `Viewed ${Date.now()}`);
  const created = await trpcMutation(request, "trigger.create", {
    kind: "schedule",
    workflowId,
    name: "Hourly",
    config: { cron: "0 * * * *", timezone: "UTC" },
  });
  expect(created.status(), await created.text()).toBe(200);

  const members = new MembersPage(page);
  await members.goto();
  const link = await members.invite(uniqueEmail("trigger-viewer"), "viewer");
  const viewerCtx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerCtx.newPage();
  await viewer.goto(new URL(link).pathname);
  await new SignUpPage(viewer).fill({ name: "Tina Viewer", password: "viewer-password-1" });
  await expect(viewer).toHaveURL(/\/workflows/);

  const triggers = new TriggersPage(viewer);
  await triggers.goto(workflowId);
  await expect(triggers.row("Hourly")).toContainText("0 * * * * · UTC");
  await expect(triggers.row("Hourly")).toContainText("enabled");
  // On the page, not the sidebar: its "New workspace" is every user's own.
  await expect(viewer.getByRole("main").getByRole("button", { name: /^New / })).toHaveCount(0);
  await expect(viewer.getByRole("switch")).toHaveCount(0);
  await triggers.open("Hourly");
  await expect(viewer.getByRole("region", { name: "Ticks" })).toBeVisible();
  for (const name of ["Fire now", "Edit", "Delete", "Rotate secret"])
    await expect(viewer.getByRole("button", { name, exact: true })).toHaveCount(0);
  await viewerCtx.close();
});
