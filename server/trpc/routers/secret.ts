import { CreateSecretInput, DeleteSecretInput, UpdateSecretInput } from "@/lib/schemas/secrets";
import { createSecret } from "../../services/secrets/create-secret";
import { deleteSecret } from "../../services/secrets/delete-secret";
import { listSecrets } from "../../services/secrets/list-secrets";
import { updateSecret } from "../../services/secrets/update-secret";
import { roleProcedure, router } from "../init";

/** Secret values go in through create/update and never come back out. */
export const secretRouter = router({
  /** Names and history only; editors need the names to write `{{ secrets.NAME }}`. */
  list: roleProcedure("editor").query(({ ctx }) => listSecrets({ ctx: ctx.svc })),
  create: roleProcedure("admin")
    .input(CreateSecretInput)
    .mutation(({ ctx, input }) => createSecret({ ctx: ctx.svc, input })),
  update: roleProcedure("admin")
    .input(UpdateSecretInput)
    .mutation(({ ctx, input }) => updateSecret({ ctx: ctx.svc, input })),
  delete: roleProcedure("admin")
    .input(DeleteSecretInput)
    .mutation(({ ctx, input }) => deleteSecret({ ctx: ctx.svc, input })),
});
