import { expect, test } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow } from "../fixtures/workflows";
import { ProposalRulesPage } from "../pages/proposal-rules-page";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

function greeter(name: string, extraStep = false) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    steps: [
      { id: "greet", type: "transform", config: { value: "hello" } },
      ...(extraStep ? [{ id: "shout", type: "transform", config: { value: "hi!" } }] : []),
    ],
  };
}

test.afterEach(async ({ request }) => {
  // The workspace is shared with other specs: leave it without rules.
  const res = await trpcMutation(request, "proposalRules.update", {
    rules: [],
    allowedDomains: [],
  });
  expect(res.ok(), await res.text()).toBe(true);
});

test("an admin writes proposal rules, sees a bad rule's position, previews them on recent proposals and saves", async ({
  page,
  request,
}) => {
  const name = `Ruled ${stamp()}`;
  const summary = `Add a shout step ${stamp()}`;
  const workflowId = await publishWorkflow(request, greeter(name));
  await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: greeter(name, true),
  });

  const rules = new ProposalRulesPage(page);
  await rules.goto();
  await rules.addPreset("Warn on script steps");
  await rules.addRule({
    name: "Adds a transform",
    expression: '"transform" in change.stepTypesAdded &&',
    effect: "Warn",
  });

  // A bad rule: the error names it and where CEL stopped.
  await rules.preview();
  await expect(rules.error).toContainText(/Rule "Adds a transform", line 1 column \d+/);
  await expect(rules.previewTable).toHaveCount(0);

  await rules.rule(2).getByLabel("Expression").fill('"transform" in change.stepTypesAdded');
  await rules.preview();
  await expect(rules.error).toHaveCount(0);
  const row = rules.previewTable.getByRole("row").filter({ hasText: summary });
  await expect(row).toContainText("Adds a transform");
  await expect(row).not.toContainText("Warn on script steps");

  await rules.save();
  await expect(page.getByText("Proposal rules saved")).toBeVisible();
  await page.reload();
  await expect(rules.rule(2).getByLabel("Name")).toHaveValue("Adds a transform");
  await expect(rules.rule(1).getByLabel("Name")).toHaveValue("Warn on script steps");
});
