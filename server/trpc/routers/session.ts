import { RevokeAllSessionsInput, RevokeSessionInput } from "@/lib/schemas/sessions";
import { listSessions } from "../../services/sessions/list-sessions";
import { revokeAllSessions } from "../../services/sessions/revoke-all-sessions";
import { revokeSession } from "../../services/sessions/revoke-session";
import { authedProcedure, router } from "../init";

/** The signed-in user's own browser sessions (account page); never anyone else's. */
export const sessionRouter = router({
  list: authedProcedure.query(({ ctx }) => listSessions({ ctx: ctx.svc })),
  revoke: authedProcedure
    .input(RevokeSessionInput)
    .mutation(({ ctx, input }) => revokeSession({ ctx: ctx.svc, input })),
  revokeAll: authedProcedure
    .input(RevokeAllSessionsInput)
    .mutation(({ ctx, input }) => revokeAllSessions({ ctx: ctx.svc, input })),
});
