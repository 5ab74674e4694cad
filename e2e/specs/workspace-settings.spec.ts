import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { IntegrationsPage, PoliciesPage, SecretsPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

test("secrets are write-only: create, update and delete without the value ever coming back", async ({
  page,
}) => {
  const secrets = new SecretsPage(page);
  await secrets.goto();
  const name = `E2E_TOKEN_${Date.now().toString(36).toUpperCase()}`;
  const value = `e2e-secret-${Math.random().toString(36).slice(2)}`;

  // Client-side validation names the problem next to the field.
  const form = page.getByRole("region", { name: "Add a secret" });
  await form.getByLabel("Value").fill("abc");
  await form.getByRole("button", { name: "Save secret" }).click();
  await expect(form.getByText("Secret values have at least 4 characters")).toBeVisible();

  await secrets.create(name, value);
  await expect(form.getByLabel("Value")).toHaveValue("");
  await expect(form.getByLabel("Value")).toHaveAttribute("type", "password");
  expect(await page.content()).not.toContain(value);

  const rotated = `${value}-rotated`;
  await secrets.updateValue(name, rotated);
  await expect(page.getByText(`Secret ${name} updated`)).toBeVisible();
  await page.reload();
  expect(await page.content()).not.toContain(rotated);

  await secrets.delete(name);
});

test("policies: add allowed hosts by keyboard, refuse bad entries, forbid a step type, and keep them", async ({
  page,
}) => {
  const policies = new PoliciesPage(page);
  await policies.goto();
  await policies.addHost("not a host!");
  await expect(
    page.getByText('"not a host!" is not a host name, IP address or CIDR range.'),
  ).toBeVisible();
  await policies.addHost("10.20.0.0/16");
  await policies.addHost("Build.Internal");
  await expect(policies.hosts()).toContainText("10.20.0.0/16");
  await expect(policies.hosts()).toContainText("build.internal");
  await policies.checkbox("Forbidden step types", /^Agent/).check();
  await policies.save();

  await page.reload();
  await expect(policies.hosts()).toContainText("build.internal");
  await expect(policies.checkbox("Forbidden step types", /^Agent/)).toBeChecked();
  await expect(
    page.getByRole("checkbox", { name: "Allow script steps in this workspace" }),
  ).not.toBeChecked();

  // Clean up for other specs.
  await page.getByRole("button", { name: "Remove 10.20.0.0/16" }).click();
  await page.getByRole("button", { name: "Remove build.internal" }).click();
  await policies.checkbox("Forbidden step types", /^Agent/).uncheck();
  await policies.save();
});

test("required approvals: an admin picks the kinds of steps that need an approval first, and they are kept", async ({
  page,
}) => {
  const policies = new PoliciesPage(page);
  await policies.goto();
  await expect(page.getByRole("heading", { name: "Required approvals" })).toBeVisible();
  // A type no other spec publishes, so the policy being on for a moment breaks nothing else.
  const emit = policies.checkbox("Required approvals", /^Emit event/);
  await expect(
    policies.checkbox("Required approvals", /^HTTP requests that change something/),
  ).toBeVisible();
  await expect(policies.checkbox("Required approvals", /^Approval/)).toHaveCount(0);
  await emit.check();
  await policies.save();
  await page.reload();
  await expect(emit).toBeChecked();
  await expect(policies.checkbox("Forbidden step types", /^Emit event/)).not.toBeChecked();

  await emit.uncheck();
  await policies.save();
});

test("admission limits: shown with their effective values, set by an admin, kept, and reset to the default", async ({
  page,
}) => {
  const policies = new PoliciesPage(page);
  await policies.goto();
  const card = page.getByRole("region", { name: "Admission limits" });
  const perPerson = card.getByLabel("Active runs per person");
  await expect(card).toContainText("In effect: 50 (the server default)");
  await perPerson.fill("0");
  await card.getByRole("button", { name: "Save limits" }).click();
  await expect(perPerson).toHaveAttribute("aria-invalid", "true");
  await perPerson.fill("3");
  await card.getByRole("button", { name: "Save limits" }).click();
  await expect(page.getByText("Admission limits saved")).toBeVisible();
  await page.reload();
  await expect(card.getByLabel("Active runs per person")).toHaveValue("3");
  await expect(card).toContainText("In effect: 3.");
  // Back to the default for other specs.
  await card.getByLabel("Active runs per person").fill("");
  await card.getByRole("button", { name: "Save limits" }).click();
  await expect(card).toContainText("In effect: 50 (the server default)");
});

test("integrations: validation, a real test connection that names the refusal, save and remove", async ({
  page,
}) => {
  const integrations = new IntegrationsPage(page);
  await integrations.goto();
  const llm = integrations.llm();
  await llm.getByLabel("Base URL").fill("ftp://models.example");
  await llm.getByRole("button", { name: "Save" }).click();
  await expect(llm.getByText("Use an http or https URL")).toBeVisible();
  await expect(llm.getByText("Enter a model name")).toBeVisible();

  // A local model server is refused until an admin allow-lists it: the exact reason comes back.
  await llm.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
  await llm.getByLabel("Default model").fill("local-model");
  await llm.getByRole("button", { name: "Test connection" }).click();
  await expect(llm.getByRole("alert")).toContainText("it is a loopback address");

  await llm.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("LLM endpoint saved")).toBeVisible();
  await expect(llm.getByText("Configured", { exact: true })).toBeVisible();
  await page.reload();
  await expect(integrations.llm().getByLabel("Default model")).toHaveValue("local-model");
  await integrations.llm().getByRole("button", { name: "Remove" }).click();
  await expect(integrations.llm().getByText("Not configured")).toBeVisible();
});
