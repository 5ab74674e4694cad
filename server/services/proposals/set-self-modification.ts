import "server-only";
import { eq } from "drizzle-orm";
import { users, workflows } from "@/db/schema";
import { SetSelfModificationInput } from "@/lib/schemas/proposals";
import { hashDefinition, validateDefinition } from "@/lib/workflow";
import { ConflictError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { compileDefinition, workspaceForbiddenStepTypes } from "../workflows/definition-policy";
import { loadWorkflow } from "../workflows/load-workflow";
import { recordVersion } from "../workflows/record-version";
import { allowsSelfModification, publishedState } from "./published-state";

function withFlag(definition: unknown, enabled: boolean): unknown {
  if (!definition || typeof definition !== "object" || Array.isArray(definition)) return definition;
  const d = definition as Record<string, unknown>;
  const constraints = (
    d.constraints && typeof d.constraints === "object" ? d.constraints : {}
  ) as Record<string, unknown>;
  return { ...d, constraints: { ...constraints, allowSelfModification: enabled } };
}

/**
 * Turns change proposals on or off for a workflow (admin, audited) by publishing a new version
 * with `constraints.allowSelfModification` flipped: the flag is part of the definition, which is
 * the only persisted shape and what a proposal is checked against (docs/proposals.md). The draft
 * gets the same flip, so the next publish does not silently undo it. `expectedVersionId` pins the
 * version the caller's confirmation named, so the new version is the one it announced.
 */
export async function setSelfModification({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const userId = requireUserId(ctx);
  const parsed = SetSelfModificationInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Self-modification");
  const { workflowId, enabled, expectedVersionId } = parsed.data;
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    const state = await publishedState(tx, wf);
    if (expectedVersionId !== undefined && state.version.id !== expectedVersionId)
      throw new ConflictError(
        `The workflow was published meanwhile (v${state.version.version} is current now): look at the setting again before changing it`,
        { currentVersion: state.version.version },
      );
    if (allowsSelfModification(state.definition) === enabled)
      return { version: state.version.version, changed: false };
    const compiled = await compileDefinition(
      tx,
      ws.id,
      withFlag(state.definition, enabled),
      "The workflow",
    );
    const [who] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
    const result = await recordVersion(tx, ctx, wf, {
      definition: compiled.normalized,
      hash: compiled.hash,
      source: "publish",
      notes: `${who?.name ?? userId} turned change proposals ${enabled ? "on" : "off"} (constraints.allowSelfModification: ${enabled})`,
    });
    const draft = withFlag(wf.draft, enabled);
    const validation = validateDefinition(draft, {
      forbiddenStepTypes: await workspaceForbiddenStepTypes(tx, ws.id),
    });
    await tx
      .update(workflows)
      .set({
        draft,
        draftHash:
          validation.ok && validation.definition ? hashDefinition(validation.definition) : null,
        draftRevision: wf.draftRevision + 1,
        draftUpdatedAt: ctx.now(),
        draftUpdatedBy: userId,
      })
      .where(eq(workflows.id, wf.id));
    await recordAudit(tx, ctx, {
      workspaceId: ws.id,
      action: enabled
        ? "workflow.self_modification_enabled"
        : "workflow.self_modification_disabled",
      targetType: "workflow",
      targetId: wf.id,
      data: { version: result.version.version, from: state.version.version },
    });
    return { version: result.version.version, changed: true };
  });
}
