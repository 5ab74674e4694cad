import { CreateApiTokenInput, RevokeApiTokenInput } from "@/lib/schemas/api-tokens";
import { createApiToken } from "../../services/api-tokens/create-api-token";
import { listApiTokens } from "../../services/api-tokens/list-api-tokens";
import { revokeApiToken } from "../../services/api-tokens/revoke-api-token";
import { roleProcedure, router } from "../init";

export const apiTokenRouter = router({
  list: roleProcedure("admin").query(({ ctx }) => listApiTokens({ ctx: ctx.svc })),
  /** The only response that ever contains the token. */
  create: roleProcedure("admin")
    .input(CreateApiTokenInput)
    .mutation(({ ctx, input }) => createApiToken({ ctx: ctx.svc, input })),
  revoke: roleProcedure("admin")
    .input(RevokeApiTokenInput)
    .mutation(({ ctx, input }) => revokeApiToken({ ctx: ctx.svc, input })),
});
