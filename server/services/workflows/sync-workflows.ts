import "server-only";
import { assertDefinitionSlot } from "../quotas/enforce-quotas";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Queryable } from "@/db/client";
import { workflows, workspaces } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { UpdateWorkflowInput } from "@/lib/schemas/workflows";
import {
  ConflictError,
  ValidationError,
  fromZodError,
  type ValidationIssueLike,
} from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { compileDefinition, type CompiledDefinition } from "./definition-policy";
import { currentVersion, type WorkflowRow } from "./load-workflow";
import { recordVersion } from "./record-version";

const Slug = UpdateWorkflowInput.shape.slug.unwrap();

/** One workflow of the set: its slug plus the definition's own fields (`{ slug, schemaVersion, name, steps, … }`). */
export const SyncWorkflowItem = z.looseObject({ slug: Slug });

export const SyncWorkflowsInput = z.strictObject({
  workflows: z.array(SyncWorkflowItem).max(500),
  /** Plan only: nothing is written. */
  dryRun: z.boolean().default(false),
  /** Delete the workspace's workflows whose slug is not in the set (otherwise only reported). */
  prune: z.boolean().default(false),
});
export type SyncWorkflowsInput = z.input<typeof SyncWorkflowsInput>;

export const SYNC_ACTIONS = ["create", "publish", "unchanged", "would_delete", "delete"] as const;
export type SyncAction = (typeof SYNC_ACTIONS)[number];

export interface SyncPlanItem {
  slug: string;
  action: SyncAction;
  workflowId: string | null;
  /** The current version before the sync (null for a new workflow). */
  fromVersion: string | null;
  /** The version after applying (create/publish), or the unchanged current one. */
  version: string | null;
  hash: string | null;
}

/**
 * Declarative sync (SPEC §9): makes the workspace's workflows match a set of definitions keyed by
 * slug. Every definition is validated first (all issues at once, paths under `workflows.<i>`);
 * then, in one transaction with the workspace's workflows locked, each slug is created, published
 * as a new version (source `import`) or left unchanged. Workflows absent from the set are only
 * reported (`would_delete`) unless `prune` is true. `dryRun` returns the same plan, writing nothing.
 */
export async function syncWorkflows({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = SyncWorkflowsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Sync");
  const { dryRun, prune } = parsed.data;
  const items = parsed.data.workflows.map(({ slug, ...definition }) => ({ slug, definition }));

  const issues: ValidationIssueLike[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const first = seen.get(item.slug);
    if (first !== undefined)
      issues.push({
        path: ["workflows", i, "slug"],
        message: `Duplicate slug "${item.slug}" (also workflows.${first})`,
      });
    else seen.set(item.slug, i);
  });
  const compiled: CompiledDefinition[] = [];
  for (const [i, item] of items.entries()) {
    try {
      compiled[i] = await compileDefinition(
        ctx.db,
        ws.id,
        item.definition,
        `workflows.${i} (${item.slug})`,
      );
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      for (const issue of e.issues)
        issues.push({ ...issue, path: ["workflows", i, ...(issue.path ?? [])] });
    }
  }
  if (issues.length)
    throw new ValidationError(
      `The set has ${issues.length} problem${issues.length === 1 ? "" : "s"}: ${issues[0]!.message}`,
      issues,
    );

  const userId = requireUserId(ctx);
  const run = async (tx: Queryable) => {
    // One sync per workspace at a time: a second one plans against the first one's result
    // instead of racing it to create the same slugs.
    await tx
      .select({ id: workspaces.id })
      .from(workspaces)
      .where(eq(workspaces.id, ws.id))
      .for("update");
    const live = await tx
      .select()
      .from(workflows)
      .where(and(eq(workflows.workspaceId, ws.id), isNull(workflows.deletedAt)))
      .for("update");
    const bySlug = new Map(live.map((w) => [w.slug, w]));
    const plan: SyncPlanItem[] = [];
    for (const [i, item] of items.entries()) {
      const c = compiled[i]!;
      const wf = bySlug.get(item.slug);
      if (!wf) {
        plan.push({
          slug: item.slug,
          action: "create",
          workflowId: null,
          fromVersion: null,
          version: null,
          hash: c.hash,
        });
        if (!dryRun) {
          const created = await createWithSlug(
            tx,
            ctx,
            ws.id,
            userId,
            item.slug,
            item.definition,
            c,
          );
          Object.assign(plan.at(-1)!, created);
        }
        continue;
      }
      const current = await currentVersion(tx, wf);
      const base = {
        slug: item.slug,
        workflowId: wf.id,
        fromVersion: current?.version ?? null,
        hash: c.hash,
      };
      if (current?.hash === c.hash) {
        plan.push({ ...base, action: "unchanged", version: current.version });
        continue;
      }
      plan.push({ ...base, action: "publish", version: null });
      if (!dryRun)
        plan.at(-1)!.version = await publishOver(tx, ctx, wf, userId, item.definition, c);
    }
    for (const wf of live) {
      if (seen.has(wf.slug)) continue;
      const current = await currentVersion(tx, wf);
      plan.push({
        slug: wf.slug,
        action: prune ? "delete" : "would_delete",
        workflowId: wf.id,
        fromVersion: current?.version ?? null,
        version: null,
        hash: current?.hash ?? null,
      });
      if (prune && !dryRun) {
        await tx
          .update(workflows)
          .set({ deletedAt: ctx.now(), isEnabled: false, updatedAt: ctx.now() })
          .where(eq(workflows.id, wf.id));
        await recordAudit(tx, ctx, {
          action: "workflow.deleted",
          targetType: "workflow",
          targetId: wf.id,
          data: { name: wf.name, slug: wf.slug, via: "sync" },
        });
      }
    }
    const summary = Object.fromEntries(
      SYNC_ACTIONS.map((a) => [a, plan.filter((p) => p.action === a).length]),
    ) as Record<SyncAction, number>;
    if (!dryRun)
      await recordAudit(tx, ctx, {
        action: "workflow.synced",
        targetType: "workspace",
        targetId: ws.id,
        data: { prune, ...summary },
      });
    return { dryRun, prune, applied: !dryRun, summary, plan };
  };
  try {
    return await ctx.db.transaction((tx) => run(tx));
  } catch (e) {
    // Two syncs creating the same slug at once: one wins, the other is told to retry.
    if (isUniqueViolation(e))
      throw new ConflictError(
        "A workflow with one of these slugs was created meanwhile; sync again",
      );
    throw e;
  }
}

async function createWithSlug(
  tx: Queryable,
  ctx: ServiceContext,
  workspaceId: string,
  userId: string,
  slug: string,
  definition: Record<string, unknown>,
  c: CompiledDefinition,
) {
  await assertDefinitionSlot(tx, ctx.config, workspaceId, ctx.now());
  const id = newId("wf");
  const [wf] = await tx
    .insert(workflows)
    .values({
      id,
      workspaceId,
      name: c.definition.name,
      slug,
      description: c.definition.description ?? "",
      tags: [],
      draft: definition,
      draftHash: c.hash,
      draftUpdatedBy: userId,
      layout: (definition.layout as Record<string, unknown> | undefined) ?? {},
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
    data: { name: c.definition.name, slug, via: "sync" },
  });
  const v = await recordVersion(tx, ctx, wf!, {
    definition: c.normalized,
    hash: c.hash,
    source: "import",
    notes: "Synced",
  });
  return { workflowId: id, version: v.version.version };
}

/** A new version (source `import`); the draft follows, as after an import. */
async function publishOver(
  tx: Queryable,
  ctx: ServiceContext,
  wf: WorkflowRow,
  userId: string,
  definition: Record<string, unknown>,
  c: CompiledDefinition,
): Promise<string> {
  const result = await recordVersion(tx, ctx, wf, {
    definition: c.normalized,
    hash: c.hash,
    source: "import",
    notes: "Synced",
  });
  await tx
    .update(workflows)
    .set({
      draft: definition,
      draftHash: c.hash,
      draftRevision: wf.draftRevision + 1,
      draftUpdatedAt: ctx.now(),
      draftUpdatedBy: userId,
    })
    .where(eq(workflows.id, wf.id));
  return result.version.version;
}
