import "server-only";
import { RerunInput } from "@/lib/schemas/runs";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { loadVersion, loadWorkflow } from "../workflows/load-workflow";
import { createRun } from "./create-run";
import { loadRun } from "./load-run";
import { planRerun } from "./rerun-plan";

/**
 * Reruns a run: the whole run, or from a chosen step (earlier outputs reused), on the pinned
 * version or the workflow's current one, optionally with edited input. A new run is created; the
 * original stays as it was.
 */
export async function rerunRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RerunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rerun");
  const { runId, fromStepId, version, idempotencyKey } = parsed.data;
  const userId = requireUserId(ctx);
  return ctx.db.transaction(async (tx) => {
    const original = await loadRun(tx, ws.id, runId);
    if (original.parentRunId)
      throw new PreconditionFailedError(
        "Rerun the parent run instead: this run was started by a subworkflow step",
      );
    const wf = await loadWorkflow(tx, ws.id, original.workflowId);
    const targetVersionId = version === "current" ? wf.currentVersionId : original.versionId;
    if (!targetVersionId)
      throw new PreconditionFailedError("The workflow has no published version");
    if (original.triggerType === "recording" && targetVersionId === original.versionId)
      throw new PreconditionFailedError(
        "A recording's own version is a placeholder: publish the draft save_as_workflow wrote, then rerun on the current version",
      );
    const target = await loadVersion(tx, ws.id, wf.id, targetVersionId);
    const plan = await planRerun(tx, original, target, fromStepId);
    const r = await createRun(tx, ctx, {
      workspaceId: ws.id,
      workflowId: wf.id,
      versionId: target.id,
      input: parsed.data.input ?? original.input,
      trigger: {
        type: "rerun",
        id: original.id,
        payload: { rerunOf: original.id, fromStepId: fromStepId ?? null, version },
      },
      initiator:
        ctx.actor.type === "token"
          ? { type: "token", id: ctx.actor.tokenId }
          : { type: "user", id: userId },
      accountableUserId: userId,
      idempotencyKey: idempotencyKey ?? null,
      limits: original.limits,
      limitsInherited: true,
      // A rerun sees the same code as its original: the pinned commit is reused, not re-resolved.
      ...(original.repositoryUrl
        ? {
            repositoryPin: {
              repositoryUrl: original.repositoryUrl,
              repositoryRef: original.repositoryRef,
              repositorySha: original.repositorySha,
              repositoryCredentialsSecret: original.repositoryCredentialsSecret,
            },
          }
        : {}),
      rerun: {
        ofRunId: original.id,
        fromStepId: fromStepId ?? null,
        seed: fromStepId ? plan.seed : undefined,
      },
    });
    if (!r.deduplicated)
      await recordAudit(tx, ctx, {
        action: "run.rerun",
        targetType: "run",
        targetId: r.run.id,
        data: { of: original.id, fromStepId: fromStepId ?? null, version: target.version },
      });
    return {
      runId: r.run.id,
      status: r.run.status,
      deduplicated: r.deduplicated,
      version: target.version,
      reran: plan.rerun.map((s) => s.stepId),
    };
  });
}
