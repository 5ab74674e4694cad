import "server-only";
import { SwitchWorkspaceInput } from "@/lib/schemas/workspace";
import { ForbiddenError, fromZodError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { membershipsOf } from "./list-my-workspaces";

/** Checks that the user may switch to a workspace; the session then records the choice. */
export async function switchWorkspace({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  if (ctx.actor.type === "token") throw new ForbiddenError("API tokens are bound to one workspace");
  const parsed = SwitchWorkspaceInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const mine = await membershipsOf(ctx.db, requireUserId(ctx));
  const ws = mine.find((w) => w.id === parsed.data.workspaceId);
  if (!ws) throw new ForbiddenError("You are not a member of that workspace");
  return ws;
}
