import { expect, test } from "@playwright/test";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { ApiTokensPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

test("create an API token, call /api/v1/me with it, revoke it, get 401", async ({
  page,
  playwright,
  baseURL,
}) => {
  const tokens = new ApiTokensPage(page);
  await tokens.goto();
  const name = `ci-${Date.now()}`;
  const token = await tokens.create(name, "editor");
  // The token is never shown again: the list has only its prefix.
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText(token.slice(0, 10));
  await expect(page.getByText(token)).toHaveCount(0);

  const api = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${token}` },
  });
  const me = await api.get("/api/v1/me");
  expect(me.status()).toBe(200);
  const body = await me.json();
  expect(body.user.email).toBe(OWNER.email);
  expect(body.currentWorkspace).toMatchObject({ name: OWNER.workspace, role: "editor" });

  await tokens.revoke(name);
  const after = await api.get("/api/v1/me");
  expect(after.status()).toBe(401);
  expect((await after.json()).error.code).toBe("unauthorized");
  await api.dispose();
});
