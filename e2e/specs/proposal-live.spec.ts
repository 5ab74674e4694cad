import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { proposeChange } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, trpcQuery } from "../fixtures/workflows";
import { ProposalListPage, ProposalReviewPage } from "../pages/proposal-pages";

/**
 * The proposal review screen and lists are live (issue 26 defect 5): what another reviewer does
 * in their own browser appears here without a reload.
 */
test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

function greeter(name: string, value: string) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    steps: [{ id: "greet", type: "transform", config: { value } }],
  };
}

test("a second reviewer's approval appears on the owner's open review screen and list without a reload", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(120_000);
  const name = `Live review ${stamp()}`;
  const summary = `Say hi ${stamp()}`;
  const workflowId = await publishWorkflow(request, greeter(name, "hello"));
  const wf = await trpcQuery<{ currentVersion: { hash: string } }>(request, "workflow.get", {
    workflowId,
  });
  // The owner proposes; an invited approver reviews in their own browser.
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: wf.currentVersion.hash,
    summary,
    definition: greeter(name, "hi"),
  });
  const approver = await addMember(request, browser, {
    name: `Ada Approver ${stamp()}`,
    role: "approver",
  });

  const review = new ProposalReviewPage(page);
  await review.goto(workflowId, proposalId);
  await expect(review.status(summary)).toHaveAttribute("data-status", "pending");
  // The dry run is over (nothing left to poll for under the old rule), then the other person acts.
  await expect(page.getByText(/^No finished runs to replay/)).toBeVisible();
  const listTab = await page.context().newPage();
  const list = new ProposalListPage(listTab);
  await list.gotoWorkflow(workflowId);
  await expect(list.row(summary)).toContainText("Pending review");

  const theirs = await approver.context.newPage();
  const theirReview = new ProposalReviewPage(theirs);
  await theirReview.goto(workflowId, proposalId);
  await theirReview.approve("Looks right from here.");
  await expect(theirReview.status(summary)).toHaveAttribute("data-status", "approved");

  // No reload on the owner's side: both views follow within a few seconds.
  await expect(review.status(summary)).toHaveAttribute("data-status", "approved", {
    timeout: 5_000,
  });
  await expect(review.decision().getByRole("list", { name: "Reviews" })).toContainText(
    "Looks right from here.",
  );
  await expect(list.row(summary)).toContainText("Approved", { timeout: 5_000 });
  await approver.context.close();
});
