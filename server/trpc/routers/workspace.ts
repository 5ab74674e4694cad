import {
  CreateWorkspaceInput,
  RenameWorkspaceInput,
  SwitchWorkspaceInput,
} from "@/lib/schemas/workspace";
import { createWorkspace } from "../../services/workspaces/create-workspace";
import { getCurrentWorkspace } from "../../services/workspaces/get-current-workspace";
import { listMyWorkspaces } from "../../services/workspaces/list-my-workspaces";
import { renameWorkspace } from "../../services/workspaces/rename-workspace";
import { switchWorkspace } from "../../services/workspaces/switch-workspace";
import { authedProcedure, roleProcedure, router } from "../init";

export const workspaceRouter = router({
  current: roleProcedure("viewer").query(({ ctx }) => getCurrentWorkspace({ ctx: ctx.svc })),
  list: authedProcedure.query(({ ctx }) => listMyWorkspaces({ ctx: ctx.svc })),
  create: authedProcedure
    .input(CreateWorkspaceInput)
    .mutation(({ ctx, input }) => createWorkspace({ ctx: ctx.svc, input })),
  rename: roleProcedure("admin")
    .input(RenameWorkspaceInput)
    .mutation(({ ctx, input }) => renameWorkspace({ ctx: ctx.svc, input })),
  /** Checks membership; the client then stores the choice in its session (next-auth update). */
  switch: authedProcedure
    .input(SwitchWorkspaceInput)
    .mutation(({ ctx, input }) => switchWorkspace({ ctx: ctx.svc, input })),
});
