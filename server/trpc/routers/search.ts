import { GlobalSearchInput } from "@/lib/schemas/search";
import { searchGlobal } from "../../services/search/search-global";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");

export const searchRouter = router({
  /** The command palette's jump-to search (docs/ui.md or README "Command palette"). */
  global: viewer
    .input(GlobalSearchInput)
    .query(({ ctx, input }) => searchGlobal({ ctx: ctx.svc, input })),
});
