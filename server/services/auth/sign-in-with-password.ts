import "server-only";
import { SignInInput } from "@/lib/schemas/auth";
import { recordUserAudit } from "../audit/record-user-audit";
import type { ServiceContext } from "../context";
import { refundAttempt, resetThrottle, type ThrottleSubject } from "../auth-throttle/counters";
import { addressSubject, reserveOrRefuse } from "../auth-throttle/guard";
import { TWO_FACTOR_REQUIRED } from "@/lib/schemas/two-factor";
import {
  SecondFactorError,
  verifySignInSecondFactor,
} from "../two-factor/verify-sign-in-second-factor";
import { verifyCredentials } from "./verify-credentials";

/**
 * Email + password sign-in behind the throttle (lib/security/auth-throttle.ts): one attempt is
 * reserved against the account (the normalized email, known or not, so the throttle reveals no
 * accounts) and against the client address (when known) before the password is checked;
 * TooManyAttemptsError while either is locked. A success resets the account and gives the
 * address its attempt back. Returns the user, or null for wrong credentials.
 *
 * Users with two-factor on must also send a code (SecondFactorError otherwise, only ever after a
 * right password). A missing code is the normal first step: its attempt is given back, but the
 * account is NOT reset — else sending the password alone would clear the failures of wrong
 * codes and make the code guessable. A wrong code counts as a failure like a wrong password.
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
  let secondFactor: SecondFactorError | undefined;
  if (user)
    try {
      const code = (input as { code?: unknown }).code;
      await verifySignInSecondFactor({ ctx, input: { userId: user.id, code } });
    } catch (e) {
      if (!(e instanceof SecondFactorError)) throw e;
      if (e.reason === TWO_FACTOR_REQUIRED) {
        await refundAttempt(ctx.db, account);
        if (address) await refundAttempt(ctx.db, address);
        throw e;
      }
      secondFactor = e;
    }
  if (user && !secondFactor) {
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
    data: {
      method: "password",
      failures: a.failures,
      ...(secondFactor ? { reason: secondFactor.reason } : {}),
    },
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
  if (secondFactor) throw secondFactor;
  return null;
}
