import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";

/** A published one-step workflow, set up through the API (the UI for this is tested elsewhere). */
export async function publishedWorkflow(request: APIRequestContext, name: string): Promise<string> {
  const created = await trpcMutation(request, "workflow.create", { name });
  expect(created.status()).toBe(200);
  const workflowId = ((await created.json()) as { result: { data: { json: { id: string } } } })
    .result.data.json.id;
  const draft = await trpcMutation(request, "workflow.saveDraft", {
    workflowId,
    definition: {
      schemaVersion: 1,
      name,
      inputs: { who: { type: "string", default: "world" } },
      steps: [{ id: "greet", type: "transform", config: { value: "Hello {{ input.who }}" } }],
      output: "{{ steps.greet.output.data }}",
    },
  });
  expect(draft.status()).toBe(200);
  const published = await trpcMutation(request, "workflow.publish", { workflowId });
  expect(published.status(), await published.text()).toBe(200);
  return workflowId;
}

export class TriggersPage {
  constructor(private readonly page: Page) {}

  async goto(workflowId: string) {
    await this.page.goto(`/workflows/${workflowId}/triggers`);
    await expect(this.page.getByRole("heading", { name: "Triggers", exact: true })).toBeVisible();
  }

  formDialog(kind: "webhook" | "schedule" | "event") {
    return this.page.getByRole("dialog", { name: `New ${kind} trigger` });
  }

  /** Creates a webhook in the UI and returns what the secret dialog shows once. */
  async createWebhook(name: string) {
    await this.page.getByRole("button", { name: "New webhook" }).click();
    const form = this.formDialog("webhook");
    await form.getByLabel("Name", { exact: true }).fill(name);
    await form.getByRole("button", { name: "Create trigger" }).click();
    const shown = this.page.getByRole("dialog", { name: "Webhook created" });
    await expect(shown.getByText("You will not see this secret again")).toBeVisible();
    const url = (await shown.getByTestId("webhook-url").textContent())!.trim();
    const secret = (await shown.getByTestId("webhook-secret").textContent())!.trim();
    await expect(shown.getByLabel("Sample request")).toContainText(secret);
    await shown.getByRole("button", { name: "I have stored the secret" }).click();
    await expect(shown).toBeHidden();
    return { url, secret };
  }

  /** Opens the new-webhook form and names the trigger; returns the form dialog. */
  async startWebhook(name: string) {
    await this.page.getByRole("button", { name: "New webhook" }).click();
    const form = this.formDialog("webhook");
    await form.getByLabel("Name", { exact: true }).fill(name);
    return form;
  }

  /** Adds a mapping row for a declared input (its "Map <input>" button) and sets its source. */
  async mapInput(input: string, source: string) {
    const form = this.formDialog("webhook");
    await form.getByRole("button", { name: `Map ${input}` }).click();
    const names = form.getByLabel(/^Input name \d+$/);
    const row = (await names.count()) - 1;
    await expect(names.nth(row)).toHaveValue(input);
    await form.getByLabel(`Source ${row + 1}`, { exact: true }).fill(source);
  }

  /** Submits the form and returns the URL and the sample request the secret dialog shows once. */
  async submitWebhook() {
    await this.formDialog("webhook").getByRole("button", { name: "Create trigger" }).click();
    const shown = this.page.getByRole("dialog", { name: "Webhook created" });
    await expect(shown.getByText("You will not see this secret again")).toBeVisible();
    const url = (await shown.getByTestId("webhook-url").textContent())!.trim();
    const sample = (await shown.getByLabel("Sample request").textContent())!;
    await shown.getByRole("button", { name: "I have stored the secret" }).click();
    await expect(shown).toBeHidden();
    return { url, sample };
  }

  row(name: string) {
    return this.page.getByRole("row").filter({ hasText: name });
  }

  async open(name: string) {
    await this.row(name).getByRole("link", { name }).click();
    await expect(this.page.getByRole("heading", { name: new RegExp(name) })).toBeVisible();
  }

  deliveries() {
    return this.page.getByRole("region", { name: "Deliveries" });
  }
}
