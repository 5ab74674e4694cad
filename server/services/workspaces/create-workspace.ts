import "server-only";
import { memberships, workspaces } from "@/db/schema";
import { newId } from "@/lib/ids";
import { CreateWorkspaceInput } from "@/lib/schemas/workspace";
import { ForbiddenError, fromZodError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { workspaceSlug } from "./slug";

/** Any signed-in user may create a workspace; they become its owner. */
export async function createWorkspace({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const userId = requireUserId(ctx);
  if (ctx.actor.type === "token") {
    // Tokens are scoped to one workspace; creating others is a person's decision.
    throw new ForbiddenError("API tokens cannot create workspaces");
  }
  const parsed = CreateWorkspaceInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workspace");
  const id = newId("ws");
  const now = ctx.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(workspaces)
      .values({
        id,
        name: parsed.data.name,
        slug: workspaceSlug(parsed.data.name),
        createdAt: now,
      });
    await tx.insert(memberships).values({ workspaceId: id, userId, role: "owner", createdAt: now });
    await recordAudit(tx, ctx, {
      workspaceId: id,
      action: "workspace.created",
      targetType: "workspace",
      targetId: id,
      data: { name: parsed.data.name },
    });
  });
  return { id, name: parsed.data.name, role: "owner" as const };
}
