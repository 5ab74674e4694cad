import "server-only";
import { WorkflowRef } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { listTriggers } from "./list-triggers";

/** One workflow's triggers; an unknown (or another workspace's) workflow is NotFound, not `[]`. */
export async function listWorkflowTriggers({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "viewer");
  const parsed = WorkflowRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  return listTriggers({ ctx, input: { workflowId: parsed.data.workflowId } });
}
