import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { DeleteWorkflowInput } from "@/lib/schemas/workflows";
import { ValidationError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { loadWorkflow } from "./load-workflow";

/**
 * Deletes a workflow after the caller typed its name. Soft delete: its versions and runs stay
 * for history and audit, and its slug becomes free again.
 */
export async function deleteWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = DeleteWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, parsed.data.workflowId, { forUpdate: true });
    if (parsed.data.confirmName.trim() !== wf.name) {
      throw new ValidationError(`Type the workflow's name (“${wf.name}”) to confirm`, [
        { path: ["confirmName"], message: "Does not match the workflow name" },
      ]);
    }
    await tx
      .update(workflows)
      .set({ deletedAt: ctx.now(), isEnabled: false, updatedAt: ctx.now() })
      .where(eq(workflows.id, wf.id));
    await recordAudit(tx, ctx, {
      action: "workflow.deleted",
      targetType: "workflow",
      targetId: wf.id,
      data: { name: wf.name, slug: wf.slug },
    });
    return { ok: true as const };
  });
}
