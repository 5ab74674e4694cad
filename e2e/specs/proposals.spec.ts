import { expect, test } from "@playwright/test";
import { addMember, createApiToken } from "../fixtures/people";
import { proposeChange, republish } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, trpcQuery } from "../fixtures/workflows";
import { ProposalListPage, ProposalReviewPage } from "../pages/proposal-pages";
import { RunForm, RunPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);
const nextPatch = (v: string) => {
  const [major, minor, patch] = v.split(".").map(Number);
  return `${major}.${minor}.${patch! + 1}`;
};

function greeter(name: string, extraStep = false) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    steps: [
      { id: "greet", type: "transform", config: { value: "hello" } },
      ...(extraStep
        ? [{ id: "shout", type: "transform", config: { value: "{{ steps.greet.output.data }}!" } }]
        : []),
    ],
  };
}

test("an agent proposes a step, a reviewer approves and applies it, then rolls it back", async ({
  request,
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const name = `Proposed ${stamp()}`;
  const summary = `Add a shout step ${stamp()}`;
  const workflowId = await publishWorkflow(request, greeter(name));
  const wf = await trpcQuery<{ currentVersion: { version: string; hash: string } | null }>(
    request,
    "workflow.get",
    { workflowId },
  );
  const base = wf.currentVersion!.version;
  const applied = nextPatch(base);
  const restored = nextPatch(applied);

  // The agent: an editor API token of the owner posts a full definition through the HTTP API.
  const token = await createApiToken(request, `agent-${stamp()}`, "editor");
  const agent = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${token}` },
  });
  const created = await agent.post(`/api/v1/workflows/${workflowId}/proposals`, {
    data: {
      baseHash: wf.currentVersion!.hash,
      summary,
      rationale: "Callers want the greeting louder.",
      definition: greeter(name, true),
    },
  });
  const body = (await created.json()) as { id?: string; proposal?: { id: string } };
  expect(created.ok(), JSON.stringify(body)).toBe(true);
  const proposalId = body.id ?? body.proposal?.id;
  expect(proposalId).toBeTruthy();
  await agent.dispose();

  // The reviewer: another person (admin), since the proposer may not approve their own change.
  const reviewer = await addMember(request, browser, { name: "Rita Reviewer", role: "admin" });
  const page = await reviewer.context.newPage();
  // Monaco's diff editor used to throw on unmount ("TextModel got disposed before
  // DiffEditorWidget model got reset"); collect page errors to prove it no longer does.
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(m.text());
  });
  const inbox = new ProposalListPage(page);
  await inbox.gotoInbox();
  await expect(inbox.sidebarBadge()).toBeVisible();
  await expect(inbox.row(summary)).toContainText("Pending review");
  await expect(inbox.row(summary)).toContainText(name);
  const review = await inbox.open(summary);
  await expect(review.status(summary)).toHaveAttribute("data-status", "pending");
  await expect(page.getByTestId("proposal-rationale")).toHaveText(
    "Callers want the greeting louder.",
  );

  // The graph diff names the new step as added (in its accessible name, not only its colour),
  // the old one as unchanged; the change summary lists it; the JSON diff is there.
  await expect(review.node("shout", "added")).toBeVisible();
  await expect(review.node("greet", "unchanged")).toBeVisible();
  await expect(review.changeSummary()).toContainText("step `shout` (transform) added");
  await expect(review.jsonDiff().locator(".monaco-diff-editor")).toBeVisible();
  await expect(page.getByRole("button", { name: "Next change" })).toBeEnabled();

  // Keyboard: focus the added node and press Enter to see its configuration. On a loaded machine
  // the canvas can still be settling (fit, measured nodes) when the first focus lands, and the
  // key press is lost with it: focus and press again until the panel opens.
  await expect(async () => {
    await review.node("shout", "added").focus();
    await page.keyboard.press("Enter");
    await expect(review.stepPanel("shout")).toContainText("added", { timeout: 3_000 });
  }).toPass({ timeout: 20_000 });

  // Leave the screen inside the app (React unmounts both diff editors), then come back.
  await page.getByRole("link", { name: "← Proposals" }).click();
  await expect(inbox.row(summary)).toBeVisible();
  await inbox.open(summary);
  await expect(review.jsonDiff().locator(".monaco-diff-editor")).toBeVisible();
  expect(pageErrors.filter((e) => /disposed/i.test(e))).toEqual([]);

  await review.approve("Checked the graph and the JSON.");
  await expect(review.status(summary)).toHaveAttribute("data-status", "approved");
  await expect(review.decision().getByRole("list", { name: "Reviews" })).toContainText(
    "Checked the graph and the JSON.",
  );

  await review.apply("patch");
  await expect(review.status(summary)).toHaveAttribute("data-status", "applied");
  await expect(review.decision()).toContainText(`Applied as v${applied}`);

  // A new run uses the new version: the added step runs.
  await page.goto(`/workflows/${workflowId}`);
  const form = new RunForm(page);
  await form.open();
  await expect(form.dialog()).toHaveAccessibleName(`Run v${applied}`);
  await form.submit();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const run = new RunPage(page);
  await run.expectStatus("completed");
  await expect(run.stepRow("shout")).toContainText("completed");

  // Roll back from the proposal: the base version's content comes back as a new version.
  await review.goto(workflowId, proposalId!);
  await review.rollBack(base);
  await page.goto(`/workflows/${workflowId}/versions`);
  const history = page.getByRole("region", { name: "History" });
  const newest = history.getByRole("row").filter({ hasText: `v${restored}` });
  await expect(newest).toContainText("current");
  await expect(newest).toContainText(`restores v${base}`);
  await expect(history.getByRole("row").filter({ hasText: `v${applied}` })).toContainText(
    "proposal apply",
  );

  await reviewer.context.close();
});

test("a stale proposal shows the three-way view, and its author cannot approve it", async ({
  page,
  request,
}) => {
  const name = `Stale ${stamp()}`;
  const summary = `Shout, against an old base ${stamp()}`;
  const workflowId = await publishWorkflow(request, greeter(name));
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary,
    definition: greeter(name, true),
  });
  // Someone publishes a different change meanwhile: the proposal's base is no longer current.
  const moved = greeter(name);
  moved.steps[0]!.config.value = "hi there";
  await republish(request, workflowId, moved);

  const review = new ProposalReviewPage(page);
  await review.goto(workflowId, proposalId);
  await expect(page.getByText(/has changed since this proposal was written/)).toBeVisible();
  const threeWay = page.getByRole("region", { name: "Three-way view" });
  await expect(threeWay.getByRole("region", { name: "Published since the base" })).toBeVisible();
  await expect(threeWay.getByRole("region", { name: "This proposal" })).toBeVisible();
  await expect(threeWay.getByTestId("diff-editor")).toHaveCount(2);

  // Separation of duties: the author's Approve is disabled, with the server's reason beside it.
  const approve = review.decision().getByRole("button", { name: "Approve" });
  await expect(approve).toBeDisabled();
  await expect(review.decision()).toContainText("someone else must approve it");
});
