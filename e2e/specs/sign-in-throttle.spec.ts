import { expect, test } from "@playwright/test";
import { addMember } from "../fixtures/people";
import { OWNER_STATE, uniqueEmail } from "../fixtures/users";
import { SignInPage } from "../pages/auth-pages";

// Issue #17: password guessing is throttled. The e2e server locks for 3 s first
// (SLUICE_AUTH_LOCK_BASE_SECONDS in playwright.config.ts); the budget is the real one.
test.use({ storageState: OWNER_STATE });

test("wrong passwords until the lockout message; the right one is refused until the lock passes", async ({
  browser,
  request,
}) => {
  const { context: memberContext, email } = await addMember(request, browser, {
    name: "Locked Out",
    role: "viewer",
  });
  await memberContext.close();
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  for (let i = 0; i < 5; i++) {
    expect(await signIn.signInForStatus(email, `wrong-password-${i}`)).toBe(401);
    await signIn.expectError("Wrong email or password.");
  }
  expect(await signIn.signInForStatus(email, "wrong-password-again")).toBe(429);
  const seconds = await signIn.expectThrottled();
  expect(seconds).toBeGreaterThanOrEqual(1);

  // The right password is refused while locked…
  expect(await signIn.signInForStatus(email, "viewer-password-1")).toBe(429);
  await signIn.expectThrottled();
  await expect(page).toHaveURL(/\/sign-in/);
  // …and accepted once the lock has passed (refused attempts do not extend it).
  await expect(async () => {
    await signIn.signIn(email, "viewer-password-1");
    await expect(page).toHaveURL(/\/workflows/, { timeout: 2_000 });
  }).toPass({ timeout: (seconds + 10) * 1000 });
  await context.close();
});

test("a direct POST to the credentials callback answers 429 with Retry-After, unknown email alike", async ({
  playwright,
  baseURL,
}) => {
  const api = await playwright.request.newContext({ baseURL, storageState: undefined });
  const { csrfToken } = (await (await api.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const email = uniqueEmail("nobody");
  const post = () =>
    api.post("/api/auth/callback/credentials", {
      form: { csrfToken, email, password: "guess-guess", json: "true" },
    });
  for (let i = 0; i < 5; i++) expect((await post()).status()).toBe(401);
  const refused = await post();
  expect(refused.status()).toBe(429);
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  const { url } = (await refused.json()) as { url: string };
  expect(new URL(url).searchParams.get("error")).toMatch(/^too_many_attempts:\d+$/);
  await api.dispose();
});
