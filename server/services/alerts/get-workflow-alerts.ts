import "server-only";
import { GetWorkflowAlertsInput } from "@/lib/schemas/alerts";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { loadWorkflowAlerts, loadWorkspaceAlerts } from "./alert-settings";

/** A workflow's alert channels and error workflow, with the workspace defaults it falls back to. */
export async function getWorkflowAlerts({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = GetWorkflowAlertsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workflow alerts");
  await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const own = await loadWorkflowAlerts(ctx.db, ws.id, parsed.data.workflowId);
  const workspace = await loadWorkspaceAlerts(ctx.db, ws.id);
  return {
    workflowId: parsed.data.workflowId,
    channels: own.channels,
    errorWorkflowId: own.errorWorkflowId,
    workspaceChannels: workspace.channels,
    effectiveChannels: own.channels ?? workspace.channels,
  };
}
