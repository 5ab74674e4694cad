import "server-only";
import { eq } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import { NotFoundError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

export async function getCurrentWorkspace({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const [row] = await ctx.db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      slug: workspaces.slug,
      createdAt: workspaces.createdAt,
    })
    .from(workspaces)
    .where(eq(workspaces.id, ws.id));
  if (!row) throw new NotFoundError("Workspace", ws.id);
  return { ...row, role: ws.role };
}
