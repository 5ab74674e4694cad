import { SetTwoFactorRequirementInput, TwoFactorCodeInput } from "@/lib/schemas/two-factor";
import { beginTwoFactorEnrolment } from "../../services/two-factor/begin-two-factor-enrolment";
import { confirmTwoFactorEnrolment } from "../../services/two-factor/confirm-two-factor-enrolment";
import { disableTwoFactor } from "../../services/two-factor/disable-two-factor";
import { getTwoFactorRequirement } from "../../services/two-factor/get-two-factor-requirement";
import { getTwoFactorStatus } from "../../services/two-factor/get-two-factor-status";
import { regenerateRecoveryCodes } from "../../services/two-factor/regenerate-recovery-codes";
import { setTwoFactorRequirement } from "../../services/two-factor/set-two-factor-requirement";
import { authedProcedure, roleProcedure, router } from "../init";

/** The signed-in user's own authenticator, and the workspace rule that requires one. */
export const twoFactorRouter = router({
  status: authedProcedure.query(({ ctx }) => getTwoFactorStatus({ ctx: ctx.svc })),
  beginEnrolment: authedProcedure.mutation(({ ctx }) => beginTwoFactorEnrolment({ ctx: ctx.svc })),
  confirmEnrolment: authedProcedure
    .input(TwoFactorCodeInput)
    .mutation(({ ctx, input }) => confirmTwoFactorEnrolment({ ctx: ctx.svc, input })),
  disable: authedProcedure
    .input(TwoFactorCodeInput)
    .mutation(({ ctx, input }) => disableTwoFactor({ ctx: ctx.svc, input })),
  regenerateRecoveryCodes: authedProcedure
    .input(TwoFactorCodeInput)
    .mutation(({ ctx, input }) => regenerateRecoveryCodes({ ctx: ctx.svc, input })),
  workspaceRequirement: roleProcedure("viewer").query(({ ctx }) =>
    getTwoFactorRequirement({ ctx: ctx.svc }),
  ),
  setWorkspaceRequirement: roleProcedure("owner")
    .input(SetTwoFactorRequirementInput)
    .mutation(({ ctx, input }) => setTwoFactorRequirement({ ctx: ctx.svc, input })),
});
