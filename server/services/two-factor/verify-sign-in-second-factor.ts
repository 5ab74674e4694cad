import "server-only";
import { TWO_FACTOR_INVALID, TWO_FACTOR_REQUIRED } from "@/lib/schemas/two-factor";
import { UnauthorizedError } from "../../errors";
import type { ServiceContext } from "../context";
import { recordTwoFactorAudit } from "./record-two-factor-audit";
import { loadTwoFactor, spendSecondFactor } from "./totp";

/**
 * A sign-in refusal the form can tell apart from a wrong password: its message is the code
 * (`two_factor_required`, `two_factor_invalid`), which next-auth hands to the client as `error`.
 */
export class SecondFactorError extends UnauthorizedError {
  constructor(readonly reason: typeof TWO_FACTOR_REQUIRED | typeof TWO_FACTOR_INVALID) {
    super(reason);
  }
}

/**
 * The second step of a password sign-in, called once the password matched: users with two-factor
 * on must send a fresh authenticator code or an unused recovery code. Throws SecondFactorError.
 */
export async function verifySignInSecondFactor({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { userId: string; code?: unknown };
}): Promise<{ usedFactor: "none" | "totp" | "recovery" }> {
  const { userId } = input;
  const code = typeof input.code === "string" ? input.code.trim().slice(0, 64) : "";
  const enabled = (await loadTwoFactor(ctx.db, userId))?.enabledAt;
  if (!enabled) return { usedFactor: "none" };
  if (!code) throw new SecondFactorError(TWO_FACTOR_REQUIRED);
  // The password is proven: the user is the actor of what gets recorded.
  const asUser: ServiceContext = { ...ctx, actor: { type: "user", userId }, workspace: undefined };
  const used = await ctx.db.transaction(async (tx) => {
    const row = await loadTwoFactor(tx, userId, true);
    if (!row?.enabledAt) return "none" as const;
    const factor = await spendSecondFactor(tx, ctx.keys, row, code, ctx.now(), true);
    if (factor === "recovery")
      await recordTwoFactorAudit(tx, asUser, userId, "two_factor.recovery_code_used");
    return factor;
  });
  if (!used) throw new SecondFactorError(TWO_FACTOR_INVALID);
  return { usedFactor: used };
}
