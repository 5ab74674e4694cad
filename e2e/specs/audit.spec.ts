import fs from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { createApiToken } from "../fixtures/people";
import { trpcMutation } from "../fixtures/trpc";
import { OWNER_STATE } from "../fixtures/users";
import { AuditPage } from "../pages/audit-page";

test.use({ storageState: OWNER_STATE });

test("an admin reads the audit log, filters by action, exports NDJSON without secret values", async ({
  page,
  playwright,
  baseURL,
}) => {
  const suffix = Date.now().toString(36).toUpperCase();
  const secret = `AUDIT_${suffix}`;
  const value = `audit-e2e-value-${suffix}`;
  const created = await trpcMutation(page.request, "secret.create", { name: secret, value });
  expect(created.ok(), await created.text()).toBe(true);
  const updated = await trpcMutation(page.request, "secret.update", {
    name: secret,
    value: `${value}-2`,
  });
  expect(updated.ok(), await updated.text()).toBe(true);
  const token = await createApiToken(page.request, `audit-${suffix}`, "admin");

  const audit = new AuditPage(page);
  await audit.goto();
  await expect(audit.row(secret).first()).toBeVisible();
  await expect(audit.row(`audit-${suffix}`)).toContainText("api_token.created");
  // From where: the browser's address and user agent, written by the tRPC request.
  await expect(audit.from(audit.row(secret).first())).toContainText(/127\.0\.0\.1|::1/);
  await expect(audit.from(audit.row(secret).first())).toContainText(/Chrome/);

  await audit.filterByAction("secret.updated");
  await expect(audit.row(secret)).toHaveCount(1);
  await expect(audit.row(secret)).toContainText("secret.updated");
  for (const row of await audit.entries.all())
    await expect(row.getByRole("cell").nth(2)).toHaveText("secret.updated");
  await expect(audit.log).not.toContainText("api_token.created");
  await expect(page.getByText(value)).toHaveCount(0);

  const download = await audit.exportNdjson();
  const text = await fs.readFile((await download.path())!, "utf8");
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { action: string; targetId: string });
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.every((e) => e.action === "secret.updated")).toBe(true);
  expect(lines.map((e) => e.targetId)).toContain(secret);
  expect(text).not.toContain(value);

  // The same filters over the HTTP API, as NDJSON.
  const api = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${token}` },
  });
  const res = await api.get(`/api/v1/audit?action=secret.*&targetId=${secret}&format=ndjson`);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/^application\/x-ndjson/);
  const apiLines = (await res.text())
    .trimEnd()
    .split("\n")
    .map((l) => (JSON.parse(l) as { action: string }).action);
  expect(apiLines).toEqual(["secret.updated", "secret.created"]);
  await api.dispose();
});
