import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { GetWorkflowInput } from "@/lib/schemas/workflows";
import { validateDefinition } from "@/lib/workflow";
import { NotFoundError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { workspaceValidateOptions } from "./definition-policy";
import { currentVersion } from "./load-workflow";

/** A workflow by id or slug with its draft, the draft's validation issues and the current version. */
export async function getWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = GetWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const key =
    "workflowId" in parsed.data
      ? eq(workflows.id, parsed.data.workflowId)
      : eq(workflows.slug, parsed.data.slug);
  const [wf] = await ctx.db
    .select()
    .from(workflows)
    .where(and(key, eq(workflows.workspaceId, ws.id), isNull(workflows.deletedAt)))
    .limit(1);
  if (!wf)
    throw new NotFoundError(
      "Workflow",
      "workflowId" in parsed.data ? parsed.data.workflowId : parsed.data.slug,
    );
  const current = await currentVersion(ctx.db, wf);
  const validation = validateDefinition(wf.draft, await workspaceValidateOptions(ctx.db, ws.id));
  return {
    id: wf.id,
    name: wf.name,
    slug: wf.slug,
    description: wf.description,
    tags: wf.tags,
    isEnabled: wf.isEnabled,
    draft: wf.draft,
    draftRevision: wf.draftRevision,
    draftUpdatedAt: wf.draftUpdatedAt,
    layout: wf.layout,
    createdAt: wf.createdAt,
    updatedAt: wf.updatedAt,
    issues: validation.issues,
    currentVersion: current
      ? {
          id: current.id,
          version: current.version,
          hash: current.hash,
          createdAt: current.createdAt,
          source: current.source,
        }
      : null,
    hasDraftChanges: !wf.draftHash || wf.draftHash !== current?.hash,
  };
}
