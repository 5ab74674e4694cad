import { getMe } from "../../services/me/get-me";
import { authedProcedure, router } from "../init";

export const meRouter = router({
  get: authedProcedure.query(({ ctx }) => getMe({ ctx: ctx.svc })),
});
