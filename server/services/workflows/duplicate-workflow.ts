import "server-only";
import { and, eq } from "drizzle-orm";
import { definitionContents } from "@/db/schema";
import { DuplicateWorkflowInput } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { createWorkflowFromDefinition } from "./create-workflow";
import { currentVersion, loadWorkflow } from "./load-workflow";

/**
 * Copies a workflow: the copy's version 1.0.0 is the source's current published content, and its
 * draft is the source's draft when that validates (otherwise the published content).
 */
export async function duplicateWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = DuplicateWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const wf = await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const name = parsed.data.name ?? `${wf.name} (copy)`.slice(0, 200);
  const current = await currentVersion(ctx.db, wf);
  let definition: unknown = wf.draft;
  if (!wf.draftHash && current) {
    const [content] = await ctx.db
      .select({ definition: definitionContents.definition })
      .from(definitionContents)
      .where(
        and(eq(definitionContents.workspaceId, ws.id), eq(definitionContents.hash, current.hash)),
      );
    definition = content?.definition ?? wf.draft;
  }
  const renamed =
    typeof definition === "object" && definition !== null
      ? { ...(definition as object), name }
      : definition;
  return createWorkflowFromDefinition(ctx, ws.id, {
    name,
    description: wf.description,
    tags: wf.tags,
    definition: renamed,
    source: "create",
    notes: `Duplicated from “${wf.name}”`,
    layout: wf.layout,
  });
}
