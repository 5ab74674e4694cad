import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflows, workflowVersions } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { Bump, VersionSource } from "@/lib/schemas/workflows";
import { bumpVersion, FIRST_VERSION, formatVersion } from "@/lib/semver";
import { auditActor, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { chainHistory } from "../history/chain-history";
import { currentVersion, type VersionRow, type WorkflowRow } from "./load-workflow";
import { requestDryRunsForWorkflow } from "../proposals/request-dry-runs";
import { storeDefinitionContent } from "./definition-content";

export type RecordVersionResult =
  { status: "created"; version: VersionRow } | { status: "unchanged"; version: VersionRow };

/**
 * Appends a published version inside the caller's transaction (the workflow row must be locked).
 * Content is stored once per hash; content identical to the current version is a no-op that says
 * so — except for a rollback, which always records its intent as a new version.
 */
export async function recordVersion(
  tx: Queryable,
  ctx: ServiceContext,
  wf: WorkflowRow,
  args: {
    definition: Record<string, unknown>;
    hash: string;
    source: VersionSource;
    bump?: Bump;
    notes?: string;
    restoredFromVersionId?: string;
    /** Re-request open proposals' dry runs (default); an apply does it after superseding. */
    requestDryRuns?: boolean;
  },
): Promise<RecordVersionResult> {
  const current = await currentVersion(tx, wf);
  if (current && current.hash === args.hash && args.source !== "rollback") {
    return { status: "unchanged", version: current };
  }
  const next = current ? bumpVersion(current, args.bump ?? "patch") : FIRST_VERSION;
  await storeDefinitionContent(tx, {
    workspaceId: wf.workspaceId,
    hash: args.hash,
    definition: args.definition,
    createdAt: ctx.now(),
  });
  const author = auditActor(ctx);
  const [version] = await tx
    .insert(workflowVersions)
    .values({
      id: newId("ver"),
      workflowId: wf.id,
      workspaceId: wf.workspaceId,
      version: formatVersion(next),
      ...next,
      hash: args.hash,
      source: args.source,
      notes: args.notes ?? "",
      authorType: author.actorType,
      authorId: author.actorId,
      restoredFromVersionId: args.restoredFromVersionId ?? null,
      createdAt: ctx.now(),
    })
    .returning();
  await chainHistory(tx, [{ workspaceId: wf.workspaceId, kind: "version", rowId: version!.id }]);
  await tx
    .update(workflows)
    .set({ currentVersionId: version!.id, updatedAt: ctx.now() })
    .where(eq(workflows.id, wf.id));
  await recordAudit(tx, ctx, {
    workspaceId: wf.workspaceId,
    action: `workflow.version_${args.source}`,
    targetType: "workflow",
    targetId: wf.id,
    data: {
      version: version!.version,
      hash: args.hash,
      from: current?.version ?? null,
      restoredFrom: args.restoredFromVersionId ?? null,
    },
  });
  if (args.requestDryRuns !== false)
    await requestDryRunsForWorkflow(tx, wf.workspaceId, wf.id, ctx.now());
  return { status: "created", version: version! };
}
