import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun } from "../fixtures/workflows";
import { ApprovalsPage, RunPage } from "../pages/run-pages";
import { ProposalReviewPage } from "../pages/proposal-pages";

/**
 * The README's screenshots (docs/screenshots/*.png): the editor, the run page and the proposal
 * review at 1440×900 and 390×844. Not part of the default run (it rewrites committed files):
 * `npm run screenshots` after `npm run build`.
 */
test.use({ storageState: OWNER_STATE });
test.skip(!process.env.SLUICE_SCREENSHOTS, "set SLUICE_SCREENSHOTS=1 (npm run screenshots)");

const OUT = path.resolve("docs/screenshots");
const SIZES = [
  { name: "desktop", viewport: { width: 1440, height: 900 }, isMobile: false },
  { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true },
] as const;

function releaseWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    inputs: {
      release: { type: "string", required: true, description: "Release to ship" },
      amount: { type: "number", default: 250 },
    },
    steps: [
      { id: "prepare", type: "transform", config: { value: "notes for {{ input.release }}" } },
      {
        id: "big",
        type: "condition",
        config: { condition: { ref: "input.amount", gt: 100 } },
      },
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.release }}?",
          items: ["release notes checked"],
          allowInitiator: true,
        },
      },
      { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
    ],
    edges: [
      { from: "prepare", to: "big" },
      { from: "big", port: "true", to: "ask" },
      { from: "big", port: "false", to: "ship" },
      { from: "ask", port: "approved", to: "ship" },
    ],
    output: "{{ steps.ship.output.data }}",
  };
}

async function shoot(
  browser: Browser,
  size: (typeof SIZES)[number],
  go: (p: Page) => Promise<void>,
  file: string,
) {
  const context = await browser.newContext({
    storageState: OWNER_STATE,
    viewport: size.viewport,
    isMobile: size.isMobile,
    hasTouch: size.isMobile,
    deviceScaleFactor: 1,
    reducedMotion: "reduce",
  });
  const page = await context.newPage();
  await go(page);
  // From the top of the page (an opened step drawer scrolls itself into view).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({
    path: path.join(OUT, `${file}-${size.name}.png`),
    animations: "disabled",
  });
  await context.close();
}

test("screenshots for the README", async ({ browser, request }) => {
  test.setTimeout(240_000);
  const definition = releaseWorkflow("Release train");
  const workflowId = await publishWorkflow(request, definition);
  const runId = await startRun(request, workflowId, { release: "v2.4.0", amount: 250 });
  const proposalId = await proposeChange(request, {
    workflowId,
    baseHash: "current",
    summary: "Ask for approval only above 500",
    rationale: "Small releases ship without a gate.",
    definition: {
      ...definition,
      steps: definition.steps.map((s) =>
        s.id === "big" ? { ...s, config: { condition: { ref: "input.amount", gt: 500 } } } : s,
      ),
    },
  });

  // The run: approved from the inbox, so the page shows a finished run with its gate decision.
  const ctx = await browser.newContext({ storageState: OWNER_STATE });
  const approver = await ctx.newPage();
  const inbox = new ApprovalsPage(approver);
  await inbox.goto();
  await inbox.decide("Ship v2.4.0?", true, "Release notes look good");
  await new RunPage(approver).goto(runId);
  await new RunPage(approver).expectStatus("completed");
  await ctx.close();

  for (const size of SIZES) {
    await shoot(
      browser,
      size,
      async (page) => {
        await page.goto(`/workflows/${workflowId}/edit`);
        await expect(
          page.getByTestId("graph-canvas").locator(".react-flow__node").first(),
        ).toBeVisible();
      },
      "editor",
    );
    await shoot(
      browser,
      size,
      async (page) => {
        const run = new RunPage(page);
        await page.goto(`/runs/${runId}?step=ask`);
        await run.expectStatus("completed");
        await expect(page.getByRole("region", { name: "Step ask" })).toBeVisible();
        await expect(run.graphNodes().first()).toBeVisible();
      },
      "run",
    );
    await shoot(
      browser,
      size,
      async (page) => {
        const review = new ProposalReviewPage(page);
        await review.goto(workflowId, proposalId);
        await expect(review.decision()).toBeVisible();
        await expect(review.canvas().locator(".react-flow__node").first()).toBeVisible();
      },
      "proposal-review",
    );
  }
});
