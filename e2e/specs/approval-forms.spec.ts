import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startInlineRun, startRun } from "../fixtures/workflows";
import { ApprovalsPage, RunPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

/** A gate with a form, urgent and already past its due date; the next step reads the form. */
function formWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: { release: { type: "string", required: true } },
    steps: [
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.release }}?",
          allowInitiator: true,
          priority: "urgent",
          due: "2020-01-01T00:00:00Z",
          form: {
            ticket: { type: "string", required: true, description: "Change ticket" },
            risk: { type: "string", enum: ["low", "high"], default: "low" },
          },
        },
      },
      {
        id: "ship",
        type: "transform",
        config: {
          value:
            "shipped {{ input.release }} under {{ steps.ask.output.data.form.ticket }} ({{ steps.ask.output.data.form.risk }})",
        },
      },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
    output: "{{ steps.ship.output.data }}",
  };
}

test("an approval form filled in the inbox reaches the run's output; priority, overdue, sort and the deep link", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, formWorkflow(`Form gate ${stamp()}`));
  const release = `r-${stamp()}`;
  const runId = await startRun(request, workflowId, { release });
  const prompt = `Ship ${release}?`;

  const inbox = new ApprovalsPage(page);
  await inbox.goto();
  await inbox.sortBy("Priority");
  const gate = inbox.gate(prompt);
  await expect(gate).toContainText("urgent");
  await expect(gate.getByRole("status")).toHaveText("Overdue");

  // The deep link opens this decision in a dialog.
  await gate.getByRole("link", { name: "Link to this approval" }).click();
  await expect(page).toHaveURL(/\/approvals\?open=apr_/);
  const dialog = inbox.openedDialog();
  await expect(dialog.getByRole("article", { name: `Approval: ${prompt}` })).toBeVisible();
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(page).toHaveURL(/\/approvals$/);

  // Approving without the required field is refused at the field; then it goes through.
  await gate.getByRole("button", { name: "Approve" }).click();
  await expect(gate.getByText('Field "ticket" is required (Change ticket).')).toBeVisible();
  await inbox.formField(prompt, "ticket").fill("OPS-77");
  await inbox.formField(prompt, "risk").selectOption({ label: "high" });
  await gate.getByRole("button", { name: "Approve" }).click();
  await expect(gate).toHaveCount(0);

  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText(`shipped ${release} under OPS-77 (high)`);
});

test("an inline run's gate shows as Inline run in the inbox and is approved there with its form", async ({
  page,
  request,
}) => {
  const release = `r-${stamp()}`;
  const runId = await startInlineRun(request, formWorkflow(`Scratch gate ${stamp()}`), {
    release,
  });
  const prompt = `Ship ${release}?`;

  const inbox = new ApprovalsPage(page);
  await inbox.goto();
  const gate = inbox.gate(prompt);
  await expect(gate).toContainText(`Inline run · ${runId}`);
  await inbox.formField(prompt, "ticket").fill("OPS-9");
  await gate.getByRole("button", { name: "Approve" }).click();
  await expect(gate).toHaveCount(0);

  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText(`shipped ${release} under OPS-9 (low)`);
});
