import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { UpdateWorkflowInput } from "@/lib/schemas/workflows";
import { ConflictError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { loadWorkflow } from "./load-workflow";

/** Rename, describe, re-slug, tag, enable or disable. Metadata only: never creates a version. */
export async function updateWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = UpdateWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workflow");
  const { workflowId, ...changes } = parsed.data;
  const patch = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  if (changes.tags) patch.tags = [...new Set(changes.tags)];
  try {
    return await ctx.db.transaction(async (tx) => {
      const before = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
      if (Object.keys(patch).length === 0) return before;
      const [after] = await tx
        .update(workflows)
        .set({ ...patch, updatedAt: ctx.now() })
        .where(eq(workflows.id, workflowId))
        .returning();
      const diff = Object.fromEntries(
        Object.keys(patch).map((k) => [
          k,
          { from: before[k as keyof typeof before], to: patch[k] },
        ]),
      );
      const action =
        "isEnabled" in patch && Object.keys(patch).length === 1
          ? patch.isEnabled
            ? "workflow.enabled"
            : "workflow.disabled"
          : "workflow.updated";
      await recordAudit(tx, ctx, {
        action,
        targetType: "workflow",
        targetId: workflowId,
        data: diff,
      });
      return after!;
    });
  } catch (e) {
    if (isUniqueViolation(e, "workflows_workspace_slug_key"))
      throw new ConflictError(`Another workflow already uses the slug "${changes.slug}"`);
    throw e;
  }
}
