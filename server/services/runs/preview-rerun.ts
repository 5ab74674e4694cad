import "server-only";
import { and, eq, notLike } from "drizzle-orm";
import { runSteps } from "@/db/schema";
import { WorkflowDefinition } from "@/lib/workflow";
import { RerunInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { contentOf } from "../workflows/version-content";
import { loadRun } from "./load-run";
import { planRerun, rerunTarget } from "./rerun-plan";
import { rerunIdempotency, type OriginalAttempt } from "./rerun-idempotency";

/**
 * What a rerun would repeat, for the confirmation dialog, the API's dry run, MCP and the CLI:
 * side-effecting steps called out, each with the idempotency key it would send and the key the
 * original sent (rerun-idempotency.ts). Read-only: a viewer may look, rerunning needs an editor.
 */
export async function previewRerun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = RerunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Rerun");
  const original = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const target = await rerunTarget(ctx.db, ws.id, original, parsed.data.version);
  const plan = await planRerun(ctx.db, original, target, parsed.data.fromStepId);
  const definition = WorkflowDefinition.parse(await contentOf(ctx.db, ws.id, target.hash));
  const configs = new Map(definition.steps.map((s) => [s.id, s.config as unknown]));
  const attempts = await lastAttempts(ctx, original.id);
  return {
    runId: original.id,
    version: target.version,
    fromStepId: parsed.data.fromStepId ?? null,
    rerun: plan.rerun.map((s) => ({
      ...s,
      ...(s.sideEffect
        ? {
            idempotency: rerunIdempotency({
              step: { id: s.stepId, type: s.type, config: configs.get(s.stepId) },
              originalRootRunId: original.rootRunId,
              original: attempts.get(s.stepId),
            }),
          }
        : {}),
    })),
    reused: Object.keys(plan.seed),
  };
}

/** The original run's last attempt per top-level step (loop body rows carry `[`). */
async function lastAttempts(ctx: ServiceContext, runId: string) {
  const rows = await ctx.db
    .select({
      path: runSteps.path,
      attempt: runSteps.attempt,
      status: runSteps.status,
      input: runSteps.input,
    })
    .from(runSteps)
    .where(and(eq(runSteps.runId, runId), notLike(runSteps.path, "%[%")));
  const last = new Map<string, OriginalAttempt>();
  for (const r of rows) {
    const seen = last.get(r.path);
    if (!seen || r.attempt > seen.attempt) last.set(r.path, r);
  }
  return last;
}
