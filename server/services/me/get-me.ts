import "server-only";
import { eq } from "drizzle-orm";
import { users } from "@/db/schema";
import { NotFoundError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { membershipsOf } from "../workspaces/list-my-workspaces";

/** The acting user (for a token: its creator), their workspaces and the current one. */
export async function getMe({ ctx }: { ctx: ServiceContext }) {
  const userId = requireUserId(ctx);
  const [user] = await ctx.db
    .select({ id: users.id, email: users.email, name: users.name, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) throw new NotFoundError("User", userId);
  const all = await membershipsOf(ctx.db, userId);
  // A token sees only its own workspace.
  const workspaces =
    ctx.actor.type === "token" ? all.filter((w) => w.id === ctx.workspace?.id) : all;
  const current = ctx.workspace ? workspaces.find((w) => w.id === ctx.workspace!.id) : undefined;
  return {
    user,
    via: ctx.actor.type === "token" ? ("token" as const) : ("session" as const),
    tokenId: ctx.actor.type === "token" ? ctx.actor.tokenId : undefined,
    workspaces,
    currentWorkspace: current ? { ...current, role: ctx.workspace!.role } : null,
  };
}
