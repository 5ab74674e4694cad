import "server-only";
import { RerunInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadRun } from "./load-run";
import { planRerun, rerunTarget } from "./rerun-plan";

/** What a rerun would repeat, for the confirmation dialog (side-effecting steps called out). */
export async function previewRerun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = RerunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rerun");
  const original = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const target = await rerunTarget(ctx.db, ws.id, original, parsed.data.version);
  const plan = await planRerun(ctx.db, original, target, parsed.data.fromStepId);
  return { version: target.version, rerun: plan.rerun, reused: Object.keys(plan.seed) };
}
