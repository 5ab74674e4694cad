import { expect, test } from "@playwright/test";
import { createApiToken } from "../fixtures/people";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { AuditPage } from "../pages/audit-page";
import { HistoryVerifyPanel } from "../pages/proposal-rules-page";

test.use({ storageState: OWNER_STATE });

test("an admin verifies the workspace's tamper-evident history from the audit page and the API", async ({
  page,
  playwright,
  baseURL,
}) => {
  const suffix = Date.now().toString(36);
  // A few chained rows of this run's own: a secret and a token (audited, so linked).
  const created = await trpcMutation(page.request, "secret.create", {
    name: `CHAIN_${suffix.toUpperCase()}`,
    value: `chain-value-${suffix}`,
  });
  expect(created.ok(), await created.text()).toBe(true);
  const token = await createApiToken(page.request, `chain-${suffix}`, "admin");

  const audit = new AuditPage(page);
  await audit.goto();
  const panel = new HistoryVerifyPanel(page);
  await panel.verify();
  await expect(panel.verdict).toContainText("History verified: OK.");
  await expect(panel.verdict).toContainText(/\d+ links checked/);
  const head = (await panel.verdict.getByRole("code").textContent()) ?? "";
  expect(head).toMatch(/^sha256:[0-9a-f]{64}$/);

  // The API answers the same, and the list carries each entry's link.
  const api = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${token}` },
  });
  const res = await api.get("/api/v1/audit/verify");
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { ok: boolean; firstBroken: unknown; checked: number };
  expect(body).toMatchObject({ ok: true, firstBroken: null });
  const list = await api.get(`/api/v1/audit?action=api_token.created&limit=5`);
  const entries = (await list.json()) as { items: { chain: { seq: number } | null }[] };
  expect(entries.items[0]!.chain?.seq).toBeGreaterThan(0);
  await api.dispose();
});
