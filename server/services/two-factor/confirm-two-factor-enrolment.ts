import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { userTwoFactor } from "@/db/schema";
import { TwoFactorCodeInput } from "@/lib/schemas/two-factor";
import {
  ConflictError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
} from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { recordTwoFactorAudit } from "./record-two-factor-audit";
import {
  consumeTotpStep,
  decryptTotpSecret,
  loadTwoFactor,
  matchTotp,
  replaceRecoveryCodes,
} from "./totp";

/**
 * Turns two-factor on once the user proves their app holds the pending secret, and returns the
 * ten recovery codes — the only time they are ever shown.
 */
export async function confirmTwoFactorEnrolment({
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
    if (!row) throw new PreconditionFailedError("Start the two-factor set-up first");
    if (row.enabledAt) throw new ConflictError("Two-factor is already on");
    const step = await matchTotp(decryptTotpSecret(ctx.keys, row), parsed.data.code, ctx.now());
    if (step === null || !(await consumeTotpStep(tx, userId, step))) throw invalidCode();
    const enabled = await tx
      .update(userTwoFactor)
      .set({ enabledAt: ctx.now() })
      .where(and(eq(userTwoFactor.userId, userId), isNull(userTwoFactor.enabledAt)))
      .returning({ userId: userTwoFactor.userId });
    if (enabled.length !== 1) throw new ConflictError("Two-factor is already on");
    const recoveryCodes = await replaceRecoveryCodes(tx, userId, row.recoverySalt, ctx.now());
    await recordTwoFactorAudit(tx, ctx, userId, "two_factor.enabled");
    return { recoveryCodes };
  });
}

export function invalidCode(
  message = "That code is not valid: enter the current 6-digit code from your authenticator app",
) {
  return new ValidationError(message, [{ path: ["code"], message }]);
}
