import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { trpcMutation } from "../fixtures/trpc";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { approvalsBadge, RunPage, RunsListPage } from "../pages/run-pages";

/**
 * Live views stay live (issue 16 item 8): nothing here reloads the page — each check waits for
 * what a person watching the screen would see change on its own.
 */
test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

function gate(name: string) {
  return {
    schemaVersion: 1,
    name,
    steps: [
      {
        id: "ask",
        type: "approval",
        // The owner starts these runs through the API and decides them too.
        config: { prompt: `${name}?`, allowInitiator: true },
      },
      { id: "done", type: "transform", config: { value: "ok" } },
    ],
    edges: [{ from: "ask", port: "approved", to: "done" }],
  };
}

test("the runs list shows a new run within 2 s", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Quick ${stamp()}`,
    steps: [{ id: "done", type: "return", config: { value: 1 } }],
  });
  const first = await startRun(request, workflowId);
  const runs = new RunsListPage(page);
  await runs.goto();
  // Nothing is active any more: the list must still notice a run started elsewhere.
  await expect(runs.row(first)).toContainText("completed");
  const second = await startRun(request, workflowId);
  await expect(runs.runLink(second)).toBeVisible({ timeout: 2_500 });
});

test("a waiting run's duration grows and its relative times tick", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, gate(`Tick ${stamp()}`));
  const runId = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("waiting");
  await expect(run.duration()).not.toHaveText("—");
  const duration = (await run.duration().textContent())!;
  await expect(run.duration()).not.toHaveText(duration, { timeout: 3_000 });
  await expect(run.createdTime()).toHaveText(/seconds? ago|now/);
  const created = (await run.createdTime().textContent())!;
  await expect(run.createdTime()).not.toHaveText(created, { timeout: 3_000 });
  // The waiting gate's own duration grows too.
  const gateDuration = run.stepRow("ask").getByRole("cell").last();
  await expect(gateDuration).not.toHaveText("—");
  const waited = (await gateDuration.textContent())!;
  await expect(gateDuration).not.toHaveText(waited, { timeout: 3_000 });
});

test("the approvals badge clears on decision, made here or elsewhere", async ({
  page,
  request,
}) => {
  const name = `Badge ${stamp()}`;
  const workflowId = await publishWorkflow(request, gate(name));
  const here = await startRun(request, workflowId);
  const elsewhere = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(here);
  await run.expectStatus("waiting");
  // Other specs may leave gates waiting in this workspace: the count drops by exactly one.
  const badge = approvalsBadge(page);
  const expectDropFrom = async (before: number) => {
    if (before === 1) await expect(badge).toBeHidden({ timeout: 3_000 });
    else await expect(badge).toHaveText(String(before - 1), { timeout: 3_000 });
  };
  await expect(badge).not.toHaveText("1");
  const before = Number(await badge.textContent());
  await run.decide(true, "fine");
  await run.expectStatus("completed");
  await expectDropFrom(before);

  // Decided through the API (another person, a script) while the page shows the run.
  await run.goto(elsewhere);
  await run.expectStatus("waiting");
  const pending = Number(await badge.textContent());
  const { pendingApprovals } = await trpcQuery<{ pendingApprovals: { id: string }[] }>(
    request,
    "run.get",
    { runId: elsewhere },
  );
  const decided = await trpcMutation(request, "approval.decide", {
    approvalId: pendingApprovals[0]!.id,
    approve: true,
    reason: "from a script",
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  await run.expectStatus("completed", 3_000);
  await expectDropFrom(pending);
});

test("a failed run shows its error where the output would be", async ({ page, request }) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Broken ${stamp()}`,
    steps: [
      {
        id: "boom",
        type: "code",
        config: { source: "export default function () { throw new Error('the sky fell'); }" },
      },
    ],
  });
  const runId = await startRun(request, workflowId);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("failed");
  const output = run.output();
  await expect(output.getByRole("status", { name: "Why there is no output" })).toContainText(
    /No output: the run failed: .*the sky fell/,
  );
  await expect(output.getByLabel("Error details", { exact: true })).toContainText("the sky fell");
  await expect(output).not.toContainText("No output yet.");
});
