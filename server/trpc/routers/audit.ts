import { z } from "zod";
import { ListAuditInput } from "@/lib/schemas/audit";
import { VerifyHistoryInput } from "@/lib/schemas/history";
import { listAudit } from "../../services/audit/list-audit";
import { verifyHistory } from "../../services/history/verify-history";
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
  /** Recomputes the tamper-evident history chain and names the first broken link. */
  verify: roleProcedure("admin")
    .input(VerifyHistoryInput.optional())
    .mutation(({ ctx, input }) => verifyHistory({ ctx: ctx.svc, input })),
});
