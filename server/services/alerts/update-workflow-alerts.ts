import "server-only";
import { workflowAlertSettings } from "@/db/schema";
import { UpdateWorkflowAlertsInput } from "@/lib/schemas/alerts";
import { fromZodError, ValidationError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { loadWorkflowAlerts } from "./alert-settings";
import { requireChannelSecrets } from "./channel-secrets";
import { getWorkflowAlerts } from "./get-workflow-alerts";

/**
 * Sets a workflow's alert channels (`null`: the workspace's) and error workflow (editor, as other
 * workflow settings). The error workflow must be another live workflow of the same workspace: a
 * handler naming itself is refused, so a failing handler can never start itself.
 */
export async function updateWorkflowAlerts({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "editor");
  const parsed = UpdateWorkflowAlertsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workflow alerts");
  const { workflowId, channels, errorWorkflowId } = parsed.data;
  const userId = ctx.actor.type === "system" ? null : requireUserId(ctx);
  await ctx.db.transaction(async (tx) => {
    await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    if (errorWorkflowId === workflowId) {
      throw new ValidationError("A workflow cannot be its own error workflow", [
        { path: ["errorWorkflowId"], message: "Choose another workflow of this workspace" },
      ]);
    }
    if (errorWorkflowId) {
      try {
        await loadWorkflow(tx, ws.id, errorWorkflowId);
      } catch {
        throw new ValidationError(
          `Error workflow ${errorWorkflowId} is not a workflow of this workspace`,
          [{ path: ["errorWorkflowId"], message: "No such workflow in this workspace" }],
        );
      }
    }
    await requireChannelSecrets(tx, ws.id, channels);
    const before = await loadWorkflowAlerts(tx, ws.id, workflowId);
    const now = ctx.now();
    await tx
      .insert(workflowAlertSettings)
      .values({
        workflowId,
        workspaceId: ws.id,
        channels,
        errorWorkflowId,
        updatedBy: userId,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: workflowAlertSettings.workflowId,
        set: { channels, errorWorkflowId, updatedBy: userId, updatedAt: now },
      });
    await recordAudit(tx, ctx, {
      action: "workflow.alerts_updated",
      targetType: "workflow",
      targetId: workflowId,
      data: { before, after: { channels, errorWorkflowId } },
    });
  });
  return getWorkflowAlerts({ ctx, input: { workflowId } });
}
