import { expect, test } from "@playwright/test";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { QuotasPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

// Specs share the owner's workspace: put it back on the server default (unlimited) afterwards.
test.afterEach(async ({ request }) => {
  const res = await trpcMutation(request, "quota.update", { plan: null, overrides: {} });
  expect(res.ok()).toBe(true);
});

const fmt = (n: number) => n.toLocaleString("en-US");

test("usage bars show the month's runs; an admin moves the workspace to Free with a lower run limit, and the next run is refused naming it", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Quota ${Date.now().toString(36)}`,
    steps: [{ id: "s", type: "transform", config: { value: 1 } }],
  });
  await startRun(request, workflowId);
  await startRun(request, workflowId);
  const view = await trpcQuery<{ meters: { key: string; used: number }[] }>(request, "quota.get");
  const used = view.meters.find((m) => m.key === "runsPerMonth")!.used;
  expect(used).toBeGreaterThanOrEqual(2);

  const quotas = new QuotasPage(page);
  await quotas.goto();
  await expect(quotas.planBadge()).toHaveText("Enterprise plan (server default)");
  await expect(quotas.meter("Runs per month")).toHaveAttribute(
    "aria-valuetext",
    `${fmt(used)} of unlimited runs`,
  );

  // Client-side validation names the problem next to the field.
  await quotas.override("Runs per month").fill("0");
  await page.getByRole("button", { name: "Save quotas" }).click();
  await expect(quotas.override("Runs per month")).toHaveAttribute("aria-invalid", "true");

  await quotas.choosePlan("Free");
  await quotas.override("Runs per month").fill(String(used));
  await quotas.save();
  await expect(quotas.planBadge()).toHaveText("Free plan");
  await expect(quotas.meter("Runs per month")).toHaveAttribute(
    "aria-valuetext",
    `${fmt(used)} of ${fmt(used)} runs`,
  );
  await expect(quotas.meter("Workflow definitions per workspace")).toHaveAttribute(
    "aria-valuetext",
    /of 10 workflows$/,
  );

  // Enforced: the next run is refused with 429, naming the limit and when it resets.
  const refused = await trpcMutation(request, "run.start", { workflowId, input: {} });
  expect(refused.status()).toBe(429);
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);
  const body = (await refused.json()) as { error: { json: { message: string } } };
  expect(body.error.json.message).toMatch(
    /^Quota "Runs per month" reached: \d+ of \d+ runs used; resets \d{4}-\d{2}-01T00:00:00Z$/,
  );

  // Kept across a reload.
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Plan", exact: true })).toHaveValue("free");
  await expect(quotas.override("Runs per month")).toHaveValue(String(used));
});
