import "server-only";
import { z } from "zod";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { resolveWorkflowRef } from "../run-state/resolve-workflow-ref";

const FindWorkflowInput = z.object({ ref: z.string().trim().min(1).max(120) });

/**
 * A workflow of the workspace by id (`wf_…`) or slug — one argument for agents, who know
 * workflows by slug as often as by id. Answers the identity only; read the rest with getWorkflow.
 */
export async function findWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = FindWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const wf = await resolveWorkflowRef(ctx.db, ws.id, parsed.data.ref);
  return { id: wf.id, slug: wf.slug, name: wf.name, currentVersionId: wf.currentVersionId };
}
