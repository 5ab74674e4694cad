import { expect, test } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { AppMenu, expectNoHorizontalScroll, expectTappable } from "../pages/app-menu";
import { ProposalListPage } from "../pages/proposal-pages";
import { ApprovalsPage, RunPage, RunsListPage } from "../pages/run-pages";

// A phone (issue #26.9): approvals, runs and proposals read and work at 390 px.
test.use({
  storageState: OWNER_STATE,
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
});

const stamp = () => Date.now().toString(36);

function gateWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    inputs: { release: { type: "string", required: true, description: "Release to ship" } },
    steps: [
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.release }}?",
          items: ["release {{ input.release }}", "a rather long checklist item that must wrap"],
          allowInitiator: true,
        },
      },
      { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
    output: "{{ steps.ship.output.data }}",
  };
}

test("on a phone: approve a gate, open the run, open a proposal; nothing scrolls sideways", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const name = `Phone ${stamp()}`;
  const release = `r-${stamp()}`;
  const definition = gateWorkflow(name);
  const workflowId = await publishWorkflow(request, definition);
  const runId = await startRun(request, workflowId, { release });
  const summary = `Ship louder ${stamp()}`;
  await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: {
      ...definition,
      steps: [
        definition.steps[0],
        { id: "ship", type: "transform", config: { value: "SHIPPED {{ input.release }}" } },
      ],
    },
  });

  // The sidebar is a top bar: its navigation waits behind a Menu button a finger can hit.
  await page.goto("/workflows");
  const menu = new AppMenu(page);
  await expectTappable(menu.button());
  await expect(menu.button()).toHaveAttribute("aria-expanded", "false");
  await expect(menu.nav()).toBeHidden();
  await expectNoHorizontalScroll(page);
  await menu.button().click();
  await expectTappable(menu.nav().getByRole("link", { name: /^Approvals/ }));
  await menu.button().click();
  await expect(menu.nav()).toBeHidden();

  // Approvals: decide the gate from the phone.
  await menu.go("Approvals");
  await expect(page).toHaveURL(/\/approvals$/);
  const inbox = new ApprovalsPage(page);
  const prompt = `Ship ${release}?`;
  await expect(inbox.gate(prompt)).toContainText(`release ${release}`);
  await expectNoHorizontalScroll(page);
  await expectTappable(inbox.gate(prompt).getByRole("button", { name: "Approve" }));
  await inbox.decide(prompt, true, "Fine from my phone");
  await expect(inbox.gate(prompt)).toHaveCount(0);
  await page.getByRole("tab", { name: "History" }).click();
  await expect(page.getByRole("row").filter({ hasText: prompt })).toContainText(
    "Fine from my phone",
  );
  await expectNoHorizontalScroll(page);

  // Runs: the list, then the run itself, completed, with a step opened.
  await menu.go("Runs");
  const runs = new RunsListPage(page);
  await expect(runs.runLink(runId)).toBeVisible();
  await expectNoHorizontalScroll(page);
  await runs.runLink(runId).click();
  const run = new RunPage(page);
  await expect(run.heading()).toContainText(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText(`shipped ${release}`);
  await expectNoHorizontalScroll(page);
  const step = await run.openStep("ship");
  await expect(step).toContainText("completed");
  await expectNoHorizontalScroll(page);

  // Proposals: the inbox, then the review.
  await menu.go("Proposals");
  const proposals = new ProposalListPage(page);
  await expect(proposals.row(summary)).toBeVisible();
  await expectNoHorizontalScroll(page);
  const review = await proposals.open(summary);
  await expect(review.decision()).toBeVisible();
  await expectNoHorizontalScroll(page);

  // The workflow is still the one published (nothing was applied from the phone).
  const wf = await trpcQuery<{ name: string }>(request, "workflow.get", { workflowId });
  expect(wf.name).toBe(name);
});
