import { ChangeMemberRoleInput, RemoveMemberInput } from "@/lib/schemas/workspace";
import { changeMemberRole } from "../../services/members/change-member-role";
import { listMembers } from "../../services/members/list-members";
import { removeMember } from "../../services/members/remove-member";
import { roleProcedure, router } from "../init";

export const memberRouter = router({
  list: roleProcedure("viewer").query(({ ctx }) => listMembers({ ctx: ctx.svc })),
  changeRole: roleProcedure("admin")
    .input(ChangeMemberRoleInput)
    .mutation(({ ctx, input }) => changeMemberRole({ ctx: ctx.svc, input })),
  /** Admins remove others; any member may remove themselves (the service decides). */
  remove: roleProcedure("viewer")
    .input(RemoveMemberInput)
    .mutation(({ ctx, input }) => removeMember({ ctx: ctx.svc, input })),
});
