import "server-only";
import { workflows } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { CreateWorkflowInput } from "@/lib/schemas/workflows";
import { findStarter } from "@/lib/starters";
import { ConflictError, ValidationError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { assertDefinitionSlot } from "../quotas/enforce-quotas";
import { recordAudit } from "../audit/record-audit";
import { compileDefinition } from "./definition-policy";
import { recordVersion } from "./record-version";
import { uniqueWorkflowSlug } from "./slug";

/**
 * Creates a workflow from a built-in starter (blank by default). The starter becomes the draft
 * and, being valid, version 1.0.0 (source `create`), so a new workflow can run at once.
 */
export async function createWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = CreateWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Workflow");
  const { name, description, template, tags } = parsed.data;
  const starter = findStarter(template);
  if (!starter)
    throw new ValidationError(`Unknown template "${template}"`, [
      { path: ["template"], message: "Unknown template" },
    ]);
  const definition = { ...starter.definition, name, ...(description ? { description } : {}) };
  return createWorkflowFromDefinition(ctx, ws.id, {
    name,
    description: description ?? "",
    tags: tags ?? [],
    definition,
    source: "create",
    notes: `Created from “${starter.name}”`,
  });
}

/** Shared by create, duplicate and import: one transaction, slug retry on a race. */
export async function createWorkflowFromDefinition(
  ctx: ServiceContext,
  workspaceId: string,
  args: {
    name: string;
    description: string;
    tags: string[];
    definition: unknown;
    source: "create" | "import";
    notes: string;
    layout?: Record<string, unknown>;
  },
) {
  const userId = requireUserId(ctx);
  const compiled = await compileDefinition(ctx.db, workspaceId, args.definition);
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.db.transaction(async (tx) => {
        await assertDefinitionSlot(tx, ctx.config, workspaceId, ctx.now());
        const id = newId("wf");
        const slug = await uniqueWorkflowSlug(tx, workspaceId, args.name);
        const [wf] = await tx
          .insert(workflows)
          .values({
            id,
            workspaceId,
            name: args.name,
            slug,
            description: args.description,
            tags: args.tags,
            draft: args.definition,
            draftHash: compiled.hash,
            draftUpdatedBy: userId,
            layout: args.layout ?? {},
            createdBy: userId,
            createdAt: ctx.now(),
            updatedAt: ctx.now(),
            draftUpdatedAt: ctx.now(),
          })
          .returning();
        await recordAudit(tx, ctx, {
          action: "workflow.created",
          targetType: "workflow",
          targetId: id,
          data: { name: args.name, slug },
        });
        const v = await recordVersion(tx, ctx, wf!, {
          definition: compiled.normalized,
          hash: compiled.hash,
          source: args.source,
          notes: args.notes,
        });
        return { id, slug, name: args.name, version: v.version.version };
      });
    } catch (e) {
      if (attempt < 3 && isUniqueViolation(e, "workflows_workspace_slug_key")) continue;
      if (isUniqueViolation(e)) throw new ConflictError("A workflow with this slug already exists");
      throw e;
    }
  }
}
