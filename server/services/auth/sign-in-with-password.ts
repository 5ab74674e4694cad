import "server-only";
import { SignInInput } from "@/lib/schemas/auth";
import { recordUserAudit } from "../audit/record-user-audit";
import type { ServiceContext } from "../context";
import { refundAttempt, resetThrottle, type ThrottleSubject } from "../auth-throttle/counters";
import { addressSubject, reserveOrRefuse } from "../auth-throttle/guard";
import { verifyCredentials } from "./verify-credentials";

/**
 * Email + password sign-in behind the throttle (lib/security/auth-throttle.ts): one attempt is
 * reserved against the account (the normalized email, known or not, so the throttle reveals no
 * accounts) and against the client address (when known) before the password is checked;
 * TooManyAttemptsError while either is locked. A success resets the account and gives the
 * address its attempt back. Returns the user, or null for wrong credentials.
 */
export async function signInWithPassword({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const parsed = SignInInput.safeParse(input);
  // Nothing was checked, so there is nothing to count (the form requires both fields anyway).
  if (!parsed.success) return null;
  const { email } = parsed.data;
  const account: ThrottleSubject = { scope: "account", subject: email };
  const address = addressSubject(ctx, "address");

  const a = await reserveOrRefuse(ctx, account);
  let b: Awaited<ReturnType<typeof reserveOrRefuse>> | undefined;
  try {
    if (address) b = await reserveOrRefuse(ctx, address);
  } catch (e) {
    await refundAttempt(ctx.db, account);
    throw e;
  }

  const user = await verifyCredentials(ctx.db, parsed.data);
  if (user) {
    await resetThrottle(ctx.db, account);
    if (address) await refundAttempt(ctx.db, address);
    await recordUserAudit(ctx.db, ctx, {
      user: { id: user.id },
      actor: "user",
      action: "auth.sign_in",
      data: { method: "password" },
    });
    return user;
  }
  await recordUserAudit(ctx.db, ctx, {
    user: { email },
    actor: "anonymous",
    action: "auth.sign_in_failed",
    data: { method: "password", failures: a.failures },
  });
  for (const [scope, r] of [
    ["account", a],
    ["address", b],
  ] as const) {
    if (!r?.lockedUntil) continue;
    await recordUserAudit(ctx.db, ctx, {
      user: { email },
      actor: "anonymous",
      action: "auth.lockout",
      data: { scope, failures: r.failures, lockedUntil: r.lockedUntil.toISOString() },
    });
  }
  return null;
}
