import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { trpcMutation } from "../fixtures/trpc";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { SignInPage } from "../pages/auth-pages";
import { expectNoSeriousAxeViolations, expectReadablePlaceholders } from "../pages/axe";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { OperationsPage } from "../pages/operations-page";
import { ProposalReviewPage } from "../pages/proposal-pages";
import { ApprovalsPage, RunPage, RunsListPage } from "../pages/run-pages";
import { WorkflowsPage } from "../pages/workflow-pages";

/**
 * Issue #26.8: axe-core finds no critical or serious violation (WCAG 2.x A/AA, contrast
 * included, and axe's best practices) on the core screens, at desktop size and, for the pages
 * people use on a phone, at 390×844.
 */

const stamp = () => Date.now().toString(36);

/**
 * Tab stops from page load to the editor's canvas toolbar, without the skip link. 32 today: 2 skip
 * links, the app sidebar (12 for an owner, Operations included), the workflow's actions (5) and
 * tabs (6), Graph/JSON (2), Propose, the palette's collapse button, search and step list (one
 * stop: arrows move inside it), then the toolbar. Every stop is one page-level control; the bound
 * leaves room for 2 more, and fails
 * when a list puts each of its items on the path again (the 18 palette entries made it 48).
 */
const TAB_BOUND = 34;

/** An order workflow touching every node kind the screens draw: input, condition, approval. */
function orders(name: string) {
  return {
    schemaVersion: 1,
    name,
    description: "Routes large orders through an approval.",
    constraints: { allowSelfModification: true },
    inputs: { amount: { type: "number", required: true, description: "Order total in EUR" } },
    steps: [
      { id: "check", type: "condition", config: { condition: { ref: "input.amount", gt: 100 } } },
      {
        id: "ask",
        type: "approval",
        config: { prompt: `Ship order ${name}?`, allowInitiator: true },
      },
      { id: "ship", type: "transform", config: { value: "shipped" } },
      { id: "auto", type: "transform", config: { value: "auto" } },
    ],
    edges: [
      { from: "check", port: "true", to: "ask" },
      { from: "check", port: "false", to: "auto" },
      { from: "ask", port: "approved", to: "ship" },
    ],
  };
}

/** axe's checks, and the placeholder contrast axe leaves out. */
async function audit(page: Page, where: string) {
  await expectNoSeriousAxeViolations(page, where);
  await expectReadablePlaceholders(page, where);
}

type Fixture = { workflowId: string; name: string; runId: string; proposalId: string };

type RunState = { status: string; pendingApprovals: { id: string }[] };

/**
 * A published workflow; a run of it that went through the approval (decided by the owner) to
 * completion; a second run waiting in the approvals inbox; a proposal to review.
 */
async function setUp(request: APIRequestContext): Promise<Fixture> {
  const name = `Axe orders ${stamp()}`;
  const workflowId = await publishWorkflow(request, orders(name));
  const runId = await startRun(request, workflowId, { amount: 250 });
  const state = () => trpcQuery<RunState>(request, "run.get", { runId });
  await expect.poll(async () => (await state()).pendingApprovals.length).toBe(1);
  const decided = await trpcMutation(request, "approval.decide", {
    approvalId: (await state()).pendingApprovals[0]!.id,
    approve: true,
    reason: "Customer verified by phone",
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  await expect.poll(async () => (await state()).status).toBe("completed");
  await startRun(request, workflowId, { amount: 900 });
  const changed = orders(name);
  changed.steps[0]!.config = { condition: { ref: "input.amount", gt: 500 } };
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary: `Raise the approval threshold ${stamp()}`,
    rationale: "Fewer small orders wait for a person.",
    definition: changed,
  });
  return { workflowId, name, runId, proposalId };
}

test.describe("signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("sign-in has no serious violations", async ({ page }) => {
    await new SignInPage(page).goto();
    await audit(page, "sign-in");
    // The error state too (an alert next to the form).
    await new SignInPage(page).signIn("nobody@example.com", "wrong-password-1");
    await expect(page.getByRole("alert")).toBeVisible();
    await audit(page, "sign-in with an error");
  });
});

test.describe("signed in", () => {
  test.use({ storageState: OWNER_STATE });

  let f: Fixture;
  test.beforeAll(async ({ playwright }, info) => {
    const request = await playwright.request.newContext({
      baseURL: info.project.use.baseURL,
      storageState: OWNER_STATE,
    });
    f = await setUp(request);
    await request.dispose();
  });

  test("the run page, with a decided approval and a step drawer", async ({ page }) => {
    const run = new RunPage(page);
    await run.goto(f.runId);
    await run.expectStatus("completed");
    await expect(page.getByRole("region", { name: "Decisions" })).toContainText("Approved by");
    await audit(page, "the run page");
    await run
      .graph()
      .getByRole("group", { name: /^Step ship/ })
      .click();
    await expect(page.getByRole("region", { name: "Step ship" })).toBeVisible();
    await audit(page, "the run page with a step drawer");
  });

  test("the workflow and run lists", async ({ page }) => {
    const workflows = new WorkflowsPage(page);
    await workflows.goto();
    await expect(workflows.row(f.name)).toBeVisible();
    await audit(page, "the workflow list");

    const runs = new RunsListPage(page);
    await runs.goto();
    await expect(runs.runLink(f.runId)).toBeVisible();
    await audit(page, "the runs list");
  });

  test("the editor, with a step in the inspector", async ({ page }) => {
    const editor = new GraphEditorPage(page);
    await editor.goto(f.workflowId);
    await expect(editor.node("check")).toBeVisible();
    await audit(page, "the editor");
    await editor.node("check").click();
    await expect(editor.inspector()).toContainText("check");
    await audit(page, "the editor with a step in the inspector");
  });

  test("the proposal review and the approvals inbox", async ({ page }) => {
    const review = new ProposalReviewPage(page);
    await review.goto(f.workflowId, f.proposalId);
    await expect(review.node("check", "changed")).toBeVisible();
    await review.expectJsonDiffNamed();
    await audit(page, "the proposal review");

    const approvals = new ApprovalsPage(page);
    await approvals.goto();
    await expect(approvals.gate(`Ship order ${f.name}?`)).toBeVisible();
    await audit(page, "the approvals inbox");
  });

  test("the operations page, with the runs of the fixture charted", async ({ page }) => {
    const ops = new OperationsPage(page);
    await ops.goto();
    await expect(ops.bars("Runs per hour").first()).toBeVisible();
    await expect(ops.workflowRow(f.name)).toBeVisible();
    await audit(page, "the operations page");
  });

  test("every settings tab has no serious violations", async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto("/settings/general");
    const nav = page.getByRole("navigation", { name: "Settings sections" });
    const names = await nav.getByRole("link").allTextContents();
    // The owner sees every section, Audit included.
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const name of names) {
      const tab = nav.getByRole("link", { name, exact: true });
      await tab.click();
      await expect(tab).toHaveAttribute("aria-current", "page");
      // Loaded: no skeleton (aria-busy) and no spinner left.
      await expect(page.locator("[aria-busy=true], .spinner")).toHaveCount(0);
      await audit(page, `settings: ${name}`);
    }
  });

  test("Tab alone reaches the canvas toolbar in few presses; the skip link in three", async ({
    page,
    request,
  }) => {
    const workflowId = await publishWorkflow(request, orders(`Axe keys ${stamp()}`));
    const editor = new GraphEditorPage(page);
    await editor.goto(workflowId);
    const toolbar = page.getByRole("toolbar", { name: "Graph tools" });
    await expect(toolbar).toBeVisible();

    // Tab without Enter: the stops before the toolbar, each named for the failure message.
    const stops: string[] = [];
    while (stops.length < TAB_BOUND + 1) {
      await page.keyboard.press("Tab");
      stops.push(
        await page.evaluate(() => {
          const el = document.activeElement;
          const name = el?.getAttribute("aria-label") ?? el?.textContent?.trim().slice(0, 40);
          return `${el?.tagName.toLowerCase()}: ${name}`;
        }),
      );
      if (await toolbar.evaluate((t) => t.contains(document.activeElement))) break;
    }
    expect(stops[0]).toBe("a: Skip to main content");
    expect(stops[1]).toBe("a: Skip to canvas toolbar");
    expect(stops.length, stops.join("\n")).toBeLessThanOrEqual(TAB_BOUND);
    expect(stops.at(-1), stops.join("\n")).toBe("button: Workflow");
    expect(stops.filter((n) => n.startsWith("button: Add ")).length).toBe(1);

    // Inside the step list, arrows move; Tab leaves it for the toolbar.
    const palette = page.getByRole("toolbar", { name: "Step types" });
    await palette.getByRole("button", { name: "Add Condition" }).focus();
    await page.keyboard.press("ArrowDown");
    await expect(palette.getByRole("button", { name: "Add Transform" })).toBeFocused();
    await page.keyboard.press("End");
    await expect(palette.getByRole("button", { name: "Add Return" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(toolbar.getByRole("button", { name: "Workflow", exact: true })).toBeFocused();

    // With the skip link: Tab, Tab, Enter.
    await editor.goto(workflowId);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to canvas toolbar" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(toolbar.getByRole("button", { name: "Workflow", exact: true })).toBeFocused();
  });

  test.describe("on a phone", () => {
    test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

    test("approvals, runs and a proposal have no serious violations at 390×844", async ({
      page,
    }) => {
      test.setTimeout(120_000);

      const approvals = new ApprovalsPage(page);
      await approvals.goto();
      await expect(approvals.gate(`Ship order ${f.name}?`)).toBeVisible();
      await audit(page, "the approvals inbox on a phone");

      await new RunsListPage(page).goto();
      await expect(new RunsListPage(page).runLink(f.runId)).toBeVisible();
      await audit(page, "the runs list on a phone");

      const run = new RunPage(page);
      await run.goto(f.runId);
      await run.expectStatus("completed");
      await audit(page, "the run page on a phone");

      const review = new ProposalReviewPage(page);
      await review.goto(f.workflowId, f.proposalId);
      await review.expectJsonDiffNamed();
      await audit(page, "the proposal review on a phone");
    });
  });
});
