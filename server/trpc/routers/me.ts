import { ChangePasswordInput } from "@/lib/schemas/sessions";
import { changePassword } from "../../services/me/change-password";
import { getMe } from "../../services/me/get-me";
import { authedProcedure, router } from "../init";

export const meRouter = router({
  get: authedProcedure.query(({ ctx }) => getMe({ ctx: ctx.svc })),
  changePassword: authedProcedure
    .input(ChangePasswordInput)
    .mutation(({ ctx, input }) => changePassword({ ctx: ctx.svc, input })),
});
