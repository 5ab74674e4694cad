import {
  InvitationIdInput,
  InvitationTokenInput,
  InviteMemberInput,
} from "@/lib/schemas/workspace";
import { acceptInvitation } from "../../services/invitations/accept-invitation";
import { createInvitation } from "../../services/invitations/create-invitation";
import { getInvitation } from "../../services/invitations/get-invitation";
import { listInvitations } from "../../services/invitations/list-invitations";
import { revokeInvitation } from "../../services/invitations/revoke-invitation";
import { authedProcedure, publicProcedure, roleProcedure, router } from "../init";

export const invitationRouter = router({
  list: roleProcedure("admin").query(({ ctx }) => listInvitations({ ctx: ctx.svc })),
  create: roleProcedure("admin")
    .input(InviteMemberInput)
    .mutation(async ({ ctx, input }) => {
      const inv = await createInvitation({ ctx: ctx.svc, input });
      return {
        id: inv.id,
        email: inv.email,
        role: inv.role,
        expiresAt: inv.expiresAt,
        link: inv.link,
      };
    }),
  revoke: roleProcedure("admin")
    .input(InvitationIdInput)
    .mutation(({ ctx, input }) => revokeInvitation({ ctx: ctx.svc, input })),
  /** The link is the credential: anyone holding it may see what it offers. */
  get: publicProcedure
    .input(InvitationTokenInput)
    .query(({ ctx, input }) => getInvitation({ ctx: ctx.svc, input })),
  accept: authedProcedure
    .input(InvitationTokenInput)
    .mutation(({ ctx, input }) => acceptInvitation({ ctx: ctx.svc, input })),
});
