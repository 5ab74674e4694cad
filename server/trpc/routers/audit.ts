import { ListAuditInput } from "@/lib/schemas/audit";
import { listAudit } from "../../services/audit/list-audit";
import { roleProcedure, router } from "../init";

/** The audit log is read-only here: rows are written by the verbs they record. */
export const auditRouter = router({
  list: roleProcedure("admin")
    .input(ListAuditInput)
    .query(({ ctx, input }) => listAudit({ ctx: ctx.svc, input })),
});
