import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { expectNoSeriousAxeViolations } from "../pages/axe";
import { OperationsPage } from "../pages/operations-page";

/**
 * Issue 30: the operations page shows real runs of this workspace in its charts and table, for
 * 24 hours and 7 days; a member below admin sees neither the link nor the data.
 */
test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

test("an admin sees runs per hour, durations and the per-workflow table", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const name = `Ops chart ${stamp()}`;
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name,
    steps: [{ id: "s", type: "transform", config: { value: 1 } }],
  });
  const runIds = [];
  for (let i = 0; i < 3; i++) runIds.push(await startRun(request, workflowId));
  for (const runId of runIds)
    await expect
      .poll(async () => (await trpcQuery<{ status: string }>(request, "run.get", { runId })).status)
      .toBe("completed");

  const ops = new OperationsPage(page);
  await ops.goto();
  await expect(ops.sidebarLink()).toHaveAttribute("aria-current", "page");
  await expect(ops.chart("Runs per hour")).toBeVisible();
  await expect(ops.bars("Runs per hour").first()).toBeVisible();
  await expect(ops.bars(/^Duration per workflow/).first()).toBeVisible();
  const row = ops.workflowRow(name);
  await expect(row.getByRole("cell").first()).toHaveText("3"); // runs
  await expect(row.getByRole("cell").nth(1)).toHaveText("0"); // failed
  await expect(row.getByRole("cell").nth(2)).toHaveText("0%");
  await expectNoSeriousAxeViolations(page, "the operations page");

  await ops.pickRange("Last 7 days");
  await expect(ops.range("Last 24 hours")).toHaveAttribute("aria-pressed", "false");
  await expect(ops.workflowRow(name).getByRole("cell").first()).toHaveText("3");
  await expect(ops.bars("Runs per hour").first()).toBeVisible();
});

test("a member below admin has no link and cannot open the page", async ({ request, browser }) => {
  test.setTimeout(120_000);
  const editor = await addMember(request, browser, {
    name: `Eve Editor ${stamp()}`,
    role: "editor",
  });
  try {
    const page = await editor.context.newPage();
    await page.goto("/workflows");
    const ops = new OperationsPage(page);
    await expect(
      page.getByRole("complementary", { name: "Main" }).getByRole("link", { name: "Runs" }),
    ).toBeVisible();
    await expect(ops.sidebarLink()).toHaveCount(0);
    await page.goto("/operations");
    await expect(page.getByRole("main").getByRole("alert")).toHaveText(
      "Only workspace admins and owners can see the operations page.",
    );
    await expect(ops.chart("Runs per hour")).toHaveCount(0);
    // The data procedure refuses them too.
    const res = await editor.context.request.get(
      `/api/trpc/operations.overview?input=${encodeURIComponent(JSON.stringify({ json: { range: "24h" } }))}`,
    );
    expect(res.status()).toBe(403);
  } finally {
    await editor.context.close();
  }
});
