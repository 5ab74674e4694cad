import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { TestStepPage } from "../pages/test-step-page";

test.use({ storageState: OWNER_STATE, viewport: { width: 1600, height: 1000 } });

test("Test this step: the draft step runs with the last run's input; its output shows in the inspector and on the node", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Test step ${Date.now()}`,
    inputs: { who: { type: "string", default: "nobody" } },
    steps: [
      { id: "greet", type: "transform", config: { value: "hello {{ input.who }}" } },
      { id: "shout", type: "transform", config: { value: "{{ steps.greet.output.data }}!" } },
      { id: "later", type: "transform", config: { value: "not run" } },
    ],
  });
  // A real run: its input prefills the dialog.
  const realRun = await startRun(request, workflowId, { who: "ann" });
  await expect
    .poll(
      async () =>
        (await trpcQuery<{ status: string }>(request, "run.get", { runId: realRun })).status,
    )
    .toBe("completed");

  const t = new TestStepPage(page);
  await t.graph.goto(workflowId);
  await t.open("shout");
  await expect(t.inputField()).toHaveValue(/"who": "ann"/);
  await t.run();

  await expect(t.output()).toContainText("hello ann!");
  await expect(t.output()).toContainText("completed");
  await expect(t.badge("shout")).toContainText("hello ann!");
  // Only the tested step ran: "later" (downstream) shows no test output.
  await expect(t.badge("later")).toHaveCount(0);

  // The test run is not in the normal runs list.
  const runs = await trpcQuery<{ items: { id: string }[] }>(request, "run.list", { workflowId });
  expect(runs.items.map((r) => r.id)).toEqual([realRun]);
});
