import { z } from "zod";

/**
 * A six-digit authenticator code or a recovery code (`xxxxx-xxxxx`). Spaces and dashes are
 * tolerated because people copy codes with them; the services normalise before comparing.
 */
export const TwoFactorCode = z
  .string()
  .trim()
  .min(6, "Enter the 6-digit code from your authenticator app")
  .max(32, "That code is too long");

export const TwoFactorCodeInput = z.strictObject({ code: TwoFactorCode });
export type TwoFactorCodeInput = z.infer<typeof TwoFactorCodeInput>;

export const SetTwoFactorRequirementInput = z.strictObject({
  required: z
    .boolean()
    .describe("Whether members who sign in with a password must use two-factor."),
});
export type SetTwoFactorRequirementInput = z.infer<typeof SetTwoFactorRequirementInput>;

/**
 * The refusals next-auth's credentials provider reports to the sign-in form (as `error`), so the
 * form can ask for the code after the password instead of saying "wrong password".
 */
export const TWO_FACTOR_REQUIRED = "two_factor_required";
export const TWO_FACTOR_INVALID = "two_factor_invalid";
