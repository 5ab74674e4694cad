import { ListReferenceSuggestionsInput } from "@/lib/schemas/recordings";
import { listReferenceSuggestions } from "../../services/recordings/list-reference-suggestions";
import { roleProcedure, router } from "../init";

/** Recording mode (MCP) as the editor sees it: the references a person may confirm. */
export const recordingRouter = router({
  suggestions: roleProcedure("viewer")
    .input(ListReferenceSuggestionsInput)
    .query(({ ctx, input }) => listReferenceSuggestions({ ctx: ctx.svc, input })),
});
