import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { proposeChange } from "../fixtures/proposals";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { ProposalReviewPage } from "../pages/proposal-pages";
import { RunPage } from "../pages/run-pages";
import { DefinitionEditor } from "../pages/workflow-pages";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

/** The issue #26 incident: an order over 100 EUR must go through the approval branch. */
function orderGate(name: string, limit: unknown) {
  return {
    schemaVersion: 1,
    name,
    inputs: { amount: { type: "number", required: true } },
    steps: [
      { id: "gate", type: "condition", config: { condition: { ref: "input.amount", gt: limit } } },
      { id: "approve", type: "transform", config: { value: "needs approval" } },
      { id: "auto", type: "transform", config: { value: "auto" } },
    ],
    edges: [
      { from: "gate", port: "true", to: "approve" },
      { from: "gate", port: "false", to: "auto" },
    ],
  };
}

type Draft = { draft: { steps: { id: string; config: { condition?: unknown } }[] } };

test('a value typed under ">" against a number input is saved as a number; the run page shows the operands', async ({
  page,
  request,
}) => {
  // v1 as the incident had it: 100 saved as text, so 250 > "100" is false.
  const workflowId = await publishWorkflow(request, orderGate(`Orders ${stamp()}`, "100"));
  const run = new RunPage(page);
  await run.goto(await startRun(request, workflowId, { amount: 250 }));
  await run.expectStatus("completed");
  const before = await run.openStep("gate");
  await expect(before.getByRole("region", { name: "Evaluated conditions" })).toContainText(
    'input.amount: 250 > "100" → false',
  );

  // The editor warns about the comparison (Problems) …
  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);
  const json = new DefinitionEditor(page);
  await expect(json.problems()).toContainText(
    'compares input.amount (a number) with the text "100"',
  );
  // … and the builder types the value: retyping 100 under ">" saves a number.
  await graph.node("gate").click();
  const config = graph.inspector().getByRole("region", { name: "Configuration" });
  await expect(config.getByLabel("Operator")).toHaveValue("gt");
  const value = config.getByLabel("Value", { exact: true });
  await expect(value).toHaveValue("100");
  await expect(config.getByLabel("Value type")).toHaveValue("string");
  // Retyped: cleared, the empty value already shows as a number; 100 is saved as one.
  await value.fill("");
  await expect(config.getByLabel("Value type")).toHaveValue("number");
  await value.pressSequentially("100");
  await expect(value).toHaveValue("100");
  await expect(config.getByLabel("Value type")).toHaveValue("number");
  await expect(config.getByText("Compared as a number: input.amount is a number.")).toBeVisible();
  await expect(json.problems()).not.toContainText("compares input.amount");
  await graph.expectSaved();
  const wf = await trpcQuery<Draft>(request, "workflow.get", { workflowId });
  expect(wf.draft.steps[0]!.config.condition).toEqual({ ref: "input.amount", gt: 100 });

  // A new condition leaf under ">" starts as a number, not as text.
  await config.getByLabel("Operator").selectOption("eq");
  await value.fill("");
  await config.getByLabel("Operator").selectOption("gte");
  await expect(config.getByLabel("Value type")).toHaveValue("number");
  await value.fill("100");
  await graph.expectSaved();
  await expect
    .poll(
      async () =>
        (await trpcQuery<Draft>(request, "workflow.get", { workflowId })).draft.steps[0]!.config
          .condition,
    )
    .toEqual({ ref: "input.amount", gte: 100 });

  await json.publish();
  await run.goto(await startRun(request, workflowId, { amount: 250 }));
  await run.expectStatus("completed");
  await expect(run.stepRow("gate")).toContainText("true");
  const after = await run.openStep("gate");
  await expect(after.getByRole("region", { name: "Evaluated conditions" })).toContainText(
    "input.amount: 250 ≥ 100 → true",
  );
});

test("the Publish dialog shows the draft's warnings before publishing", async ({
  page,
  request,
}) => {
  const name = `Orders ${stamp()}`;
  const workflowId = await publishWorkflow(request, orderGate(name, 100));
  const res = await trpcMutation(request, "workflow.saveDraft", {
    workflowId,
    definition: orderGate(name, "100"),
  });
  expect(res.ok()).toBe(true);
  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);
  await page.getByRole("button", { name: "Publish…" }).click();
  const dialog = page.getByRole("dialog", { name: "Publish a new version" });
  const warnings = dialog.getByRole("region", { name: "Warnings" });
  await expect(warnings).toContainText("1 warning");
  await expect(warnings).toContainText(
    'Step "gate" (condition): config.condition.gt compares input.amount (a number) with the text "100"',
  );
  // A warning, not an error: publishing stays possible.
  await expect(dialog.getByRole("button", { name: /^Publish v/ })).toBeEnabled();
  await dialog.getByRole("button", { name: "Cancel" }).click();
});

test("renaming a workflow input keeps focus in its entry, so what is typed next lands there", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, orderGate(`Rename ${stamp()}`, 100));
  const graph = new GraphEditorPage(page);
  await graph.goto(workflowId);
  const inputs = graph.inspector().getByRole("region", { name: "Inputs" });
  // Leaving the field by Tab commits the rename; focus moves on within the renamed entry.
  await inputs.getByRole("group", { name: "Input amount" }).getByLabel("Input name").fill("total");
  await page.keyboard.press("Tab");
  const entry = inputs.getByRole("group", { name: "Input total" });
  await expect(entry).toBeVisible();
  await expect(entry.locator(":focus")).toHaveCount(1);
  // Enter commits too, and leaves focus in the name field.
  await entry.getByLabel("Input name").fill("sum");
  await page.keyboard.press("Enter");
  const renamed = inputs.getByRole("group", { name: "Input sum" });
  await expect(renamed.getByLabel("Input name")).toBeFocused();
  // Typing goes on in the entry: the description is kept.
  await renamed.getByLabel("Description").focus();
  await page.keyboard.type("Order total in EUR");
  await graph.expectSaved();
  const wf = await trpcQuery<{ draft: { inputs: Record<string, unknown> } }>(
    request,
    "workflow.get",
    { workflowId },
  );
  expect(wf.draft.inputs).toEqual({
    sum: { type: "number", required: true, description: "Order total in EUR" },
  });
});

test('"Rerun from a step" preselects the failed step, not the last one', async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Charge ${stamp()}`,
    inputs: { text: { type: "string", required: true } },
    steps: [
      { id: "fetch", type: "transform", config: { value: 1 } },
      // A subject over 10,000 characters makes `matches` fail the step (a user error).
      {
        id: "charge",
        type: "condition",
        config: { condition: { ref: "input.text", matches: "a" } },
      },
      { id: "done", type: "transform", config: { value: "ok" } },
    ],
    edges: [
      { from: "fetch", to: "charge" },
      { from: "charge", port: "true", to: "done" },
    ],
  });
  const run = new RunPage(page);
  await run.goto(await startRun(request, workflowId, { text: "a".repeat(10_001) }));
  await run.expectStatus("failed");
  await expect(run.stepRow("charge")).toContainText("failed");
  // Looking at the last step first (why did it not run?), then opening the rerun dialog.
  await run.openStep("done");
  await page.getByRole("button", { name: "Rerun…" }).click();
  const dialog = page.getByRole("dialog", { name: "Rerun" });
  await dialog.getByRole("radio", { name: /From a step/ }).check();
  await expect(dialog.getByLabel("From step")).toHaveValue("charge");
});

test("an applied proposal shows no stale-base warning and no apply button", async ({
  request,
  browser,
}) => {
  test.setTimeout(120_000);
  const definition = (value: string) => ({
    schemaVersion: 1,
    name: `Applied ${stamp()}`,
    constraints: { allowSelfModification: true },
    steps: [{ id: "greet", type: "transform", config: { value } }],
  });
  const workflowId = await publishWorkflow(request, definition("hello"));
  const summary = `Louder ${stamp()}`;
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: definition("HELLO"),
  });
  // Another person reviews and applies (the proposer may not approve their own change).
  const reviewer = await addMember(request, browser, { name: "Ada Applier", role: "admin" });
  const page = await reviewer.context.newPage();
  const review = new ProposalReviewPage(page);
  await review.goto(workflowId, proposalId);
  await review.approve("Fine.");
  await expect(review.status(summary)).toHaveAttribute("data-status", "approved");
  await review.apply("patch");
  await expect(review.status(summary)).toHaveAttribute("data-status", "applied");
  await expect(review.decision()).toContainText(/Applied as v/);
  await expect(page.getByText(/stale base/)).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Three-way view" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Apply as v/ })).toHaveCount(0);
  // Still so after a reload (the server's answer, not only the page's state).
  await page.reload();
  await expect(review.status(summary)).toHaveAttribute("data-status", "applied");
  await expect(page.getByText(/stale base/)).toHaveCount(0);
  await reviewer.context.close();
});
