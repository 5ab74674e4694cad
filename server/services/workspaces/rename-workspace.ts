import "server-only";
import { eq } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import { RenameWorkspaceInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

export async function renameWorkspace({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = RenameWorkspaceInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workspace");
  await ctx.db.transaction(async (tx) => {
    await tx.update(workspaces).set({ name: parsed.data.name }).where(eq(workspaces.id, ws.id));
    await recordAudit(tx, ctx, {
      action: "workspace.renamed",
      targetType: "workspace",
      targetId: ws.id,
      data: { name: parsed.data.name },
    });
  });
  return { id: ws.id, name: parsed.data.name };
}
