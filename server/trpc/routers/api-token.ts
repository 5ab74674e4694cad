import { CreateApiTokenInput, RevokeApiTokenInput } from "@/lib/schemas/api-tokens";
import { createApiToken } from "../../services/api-tokens/create-api-token";
import { listApiTokens } from "../../services/api-tokens/list-api-tokens";
import { revokeApiToken } from "../../services/api-tokens/revoke-api-token";
import { roleProcedure, router } from "../init";

/** Any member manages personal tokens (capped at their role); admins see and revoke all. */
const member = roleProcedure("viewer");

export const apiTokenRouter = router({
  list: member.query(({ ctx }) => listApiTokens({ ctx: ctx.svc })),
  /** The only response that ever contains the token. */
  create: member
    .input(CreateApiTokenInput)
    .mutation(({ ctx, input }) => createApiToken({ ctx: ctx.svc, input })),
  revoke: member
    .input(RevokeApiTokenInput)
    .mutation(({ ctx, input }) => revokeApiToken({ ctx: ctx.svc, input })),
});
