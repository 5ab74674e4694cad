import "server-only";
import { RerunInput } from "@/lib/schemas/runs";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadVersion, loadWorkflow } from "../workflows/load-workflow";
import { loadRun } from "./load-run";
import { planRerun } from "./rerun-plan";

/** What a rerun would repeat, for the confirmation dialog (side-effecting steps called out). */
export async function previewRerun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = RerunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rerun");
  const original = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const wf = await loadWorkflow(ctx.db, ws.id, original.workflowId);
  const targetVersionId =
    parsed.data.version === "current" ? wf.currentVersionId : original.versionId;
  if (!targetVersionId) throw new PreconditionFailedError("The workflow has no published version");
  const target = await loadVersion(ctx.db, ws.id, wf.id, targetVersionId);
  const plan = await planRerun(ctx.db, original, target, parsed.data.fromStepId);
  return { version: target.version, rerun: plan.rerun, reused: Object.keys(plan.seed) };
}
