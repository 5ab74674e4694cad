import "server-only";
import { TwoFactorCodeInput } from "@/lib/schemas/two-factor";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { invalidCode } from "./confirm-two-factor-enrolment";
import { recordTwoFactorAudit } from "./record-two-factor-audit";
import { loadTwoFactor, replaceRecoveryCodes, spendSecondFactor } from "./totp";

/**
 * Replaces all recovery codes (used or not) with ten new ones, confirmed by a fresh authenticator
 * code: a recovery code would let someone holding one old code mint a fresh set.
 */
export async function regenerateRecoveryCodes({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const userId = requireUserId(ctx);
  const parsed = TwoFactorCodeInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Code");
  return ctx.db.transaction(async (tx) => {
    const row = await loadTwoFactor(tx, userId, true);
    if (!row?.enabledAt) throw new PreconditionFailedError("Two-factor is not on");
    if (!(await spendSecondFactor(tx, ctx.keys, row, parsed.data.code, ctx.now(), false)))
      throw invalidCode();
    const recoveryCodes = await replaceRecoveryCodes(tx, userId, row.recoverySalt, ctx.now());
    await recordTwoFactorAudit(tx, ctx, userId, "two_factor.recovery_codes_regenerated");
    return { recoveryCodes };
  });
}
