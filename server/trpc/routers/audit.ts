import { z } from "zod";
import { ListAuditInput } from "@/lib/schemas/audit";
import { listAudit } from "../../services/audit/list-audit";
import { roleProcedure, router } from "../init";

/**
 * tRPC's infinite queries add `direction` to the input; the contract is strict (unknown filters
 * are refused), so the procedure accepts and drops it here.
 */
const ListAuditProcedureInput = ListAuditInput.extend({
  direction: z.enum(["forward", "backward"]).optional(),
});

/** The audit log is read-only here: rows are written by the verbs they record. */
export const auditRouter = router({
  list: roleProcedure("admin")
    .input(ListAuditProcedureInput)
    .query(({ ctx, input: { direction: _direction, ...input } }) =>
      listAudit({ ctx: ctx.svc, input }),
    ),
});
