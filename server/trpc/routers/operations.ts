import { GetOperationsInput } from "@/lib/schemas/operations";
import { getOperationsOverview } from "../../services/operations/get-operations-overview";
import { roleProcedure, router } from "../init";

/** The operations page (admins): run rates, durations, queue, gates and webhook rejects. */
export const operationsRouter = router({
  overview: roleProcedure("admin")
    .input(GetOperationsInput)
    .query(({ ctx, input }) => getOperationsOverview({ ctx: ctx.svc, input })),
});
