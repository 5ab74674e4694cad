import "server-only";
import { z } from "zod";
import { ListRunsInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { listRuns } from "./list-runs";

const Input = ListRunsInput.extend({ workflowId: z.string().min(1).max(64) });

/**
 * One workflow's runs with the run list's filters. Unlike listRuns' optional filter, an unknown
 * (or another workspace's) workflow is NotFound rather than an empty page.
 */
export async function listWorkflowRuns({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = Input.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Filters");
  await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  return listRuns({ ctx, input: parsed.data });
}
