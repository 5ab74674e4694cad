import "server-only";
import { eq } from "drizzle-orm";
import { twoFactorRecoveryCodes, userTwoFactor } from "@/db/schema";
import { TwoFactorCodeInput } from "@/lib/schemas/two-factor";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { invalidCode } from "./confirm-two-factor-enrolment";
import { workspacesRequiringTwoFactor } from "./needs-two-factor-enrolment";
import { recordTwoFactorAudit } from "./record-two-factor-audit";
import { loadTwoFactor, spendSecondFactor } from "./totp";

/**
 * Turns two-factor off with a fresh code (authenticator or recovery), so a session left open on
 * someone else's computer cannot remove it. Refused while a workspace of the user requires it.
 */
export async function disableTwoFactor({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const userId = requireUserId(ctx);
  const parsed = TwoFactorCodeInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Code");
  await ctx.db.transaction(async (tx) => {
    const row = await loadTwoFactor(tx, userId, true);
    if (!row?.enabledAt) throw new PreconditionFailedError("Two-factor is not on");
    const requiring = await workspacesRequiringTwoFactor(tx, userId);
    if (requiring.length > 0)
      throw new PreconditionFailedError(
        `Two-factor cannot be turned off: ${requiring.map((w) => `"${w.name}"`).join(", ")} requires it for its members`,
      );
    const used = await spendSecondFactor(tx, ctx.keys, row, parsed.data.code, ctx.now(), true);
    if (!used)
      throw invalidCode(
        "That code is not valid: enter the current code from your authenticator app or an unused recovery code",
      );
    await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
    await tx.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId));
    await recordTwoFactorAudit(tx, ctx, userId, "two_factor.disabled", { confirmedWith: used });
  });
  return { enabled: false };
}
