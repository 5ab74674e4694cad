import { expect, test } from "@playwright/test";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startInlineRun, startRun } from "../fixtures/workflows";
import { QueuePage } from "../pages/queue-page";
import { RunPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

const stamp = () => Date.now().toString(36);

/** review (task for the owner, with an output form) ──▶ summary (uses the output). */
function reviewWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: { pr: { type: "string", required: true } },
    steps: [
      {
        id: "review",
        type: "task",
        config: {
          instructions: "Review PR {{ input.pr }}\n<b>not bold</b>: shown as text",
          assignee: { users: [OWNER.email] },
          outputSchema: {
            verdict: { type: "string", required: true, enum: ["approve", "request changes"] },
            comments: { type: "number", required: true, description: "How many comments" },
          },
          due: "2h",
        },
      },
      {
        id: "summary",
        type: "transform",
        config: {
          value:
            "{{ steps.review.output.data.verdict }} with {{ steps.review.output.data.comments }} comments",
        },
      },
    ],
    output: "{{ steps.summary.output.data }}",
  };
}

test("a task is completed from My queue with its form, and the run finishes with that output", async ({
  page,
  request,
}) => {
  const pr = `pr-${stamp()}`;
  const workflowId = await publishWorkflow(request, reviewWorkflow(`Review ${stamp()}`));
  const runId = await startRun(request, workflowId, { pr });
  const title = `Review PR ${pr}`;

  const queue = new QueuePage(page);
  await queue.goto();
  await expect(queue.navLink().getByTestId("queue-badge")).toBeVisible();
  const item = queue.item("Task", title);
  await expect(item).toContainText("due in 2 hours");
  const panel = await queue.openTask(title);
  // Instructions are plain text: the markup is shown, not rendered.
  await expect(panel.getByText("<b>not bold</b>: shown as text")).toBeVisible();
  await expect(panel.getByRole("link", { name: runId })).toBeVisible();

  // A required field left empty: the error is named at the field, nothing is sent.
  await panel.getByLabel("verdict *").selectOption({ label: "request changes" });
  await panel.getByRole("button", { name: "Complete" }).click();
  await expect(panel.getByText(/Output field "comments" is required/).first()).toBeVisible();

  // Keyboard: type the number and submit with Enter.
  await panel.getByLabel("comments *").fill("3");
  await panel.getByLabel("comments *").press("Enter");
  await expect(item).toHaveCount(0);

  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText("request changes with 3 comments");
});

test("failing a task needs a reason and fails the run with it", async ({ page, request }) => {
  const pr = `pr-${stamp()}`;
  const workflowId = await publishWorkflow(request, reviewWorkflow(`Fail ${stamp()}`));
  const runId = await startRun(request, workflowId, { pr });
  const queue = new QueuePage(page);
  await queue.goto();
  const panel = await queue.openTask(`Review PR ${pr}`);
  await panel.getByRole("button", { name: "Fail task" }).click();
  await expect(panel.getByRole("alert")).toContainText("Give a reason");
  await panel.getByLabel("Reason (to fail the task)").fill("PR was closed");
  await panel.getByRole("button", { name: "Fail task" }).click();
  await expect(queue.item("Task", `Review PR ${pr}`)).toHaveCount(0);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("failed");
  await expect(page.getByText(/PR was closed/).first()).toBeVisible();
});

test("a task of an inline run shows as Inline run in My queue and completes the run", async ({
  page,
  request,
}) => {
  const pr = `pr-${stamp()}`;
  const runId = await startInlineRun(request, reviewWorkflow(`Scratch ${stamp()}`), { pr });
  const title = `Review PR ${pr}`;
  const queue = new QueuePage(page);
  await queue.goto();
  const item = queue.item("Task", title);
  await expect(item).toContainText(`Inline run · ${runId}`);
  const panel = await queue.openTask(title);
  await panel.getByLabel("verdict *").selectOption({ label: "approve" });
  await panel.getByLabel("comments *").fill("0");
  await panel.getByRole("button", { name: "Complete" }).click();
  await expect(item).toHaveCount(0);
  const run = new RunPage(page);
  await run.goto(runId);
  await run.expectStatus("completed");
  await expect(run.output()).toContainText("approve with 0 comments");
});
