import "server-only";
import { and, eq } from "drizzle-orm";
import { runEvents } from "@/db/schema";
import { RecordStepInput } from "@/lib/schemas/recordings";
import { validateDefinition } from "@/lib/workflow";
import {
  expandStepShorthand,
  nextStepId,
  recordedDefinition,
  stepIdProblem,
  type RecordedStep,
} from "@/lib/workflow/recording";
import { tighterCap } from "@/lib/quotas/plans";
import { runActionAttempt } from "@/server/services/step-execution/action-attempt";
import {
  ConflictError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
} from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordInstantAttempt, type AttemptKey } from "../run-state/step-records";
import { loadRun } from "../runs/load-run";
import { loadWorkspaceQuota } from "../quotas/workspace-quota";
import { appendRunEvents } from "../runs/run-events";
import { workspaceValidateOptions } from "../workflows/definition-policy";
import { loadRecording, recordingContext, STEP_RECORDED_EVENT } from "./load-recording";

/** How long one recorded call may take at most (the step's own timeout applies within it). */
const RECORDED_STEP_BUDGET_MS = 10 * 60_000;

/**
 * One call of a recording: the config (with `@step.field` shorthand expanded) is checked as a
 * step of the workflow being recorded — workspace policies and MCP servers included — then
 * resolved against the earlier steps' outputs and executed by the engine's own attempt path
 * (secrets, SSRF guard, timeouts, redaction), or, with `preset`, recorded with that output
 * without executing. A completed call becomes a step of the recording with its config as
 * written; a failed one stays a failed attempt of the run and may be called again.
 */
export async function recordStep({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RecordStepInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Step");
  const { recordingId, type, preset } = parsed.data;
  const rec = await loadRecording(ctx.db, ws.id, recordingId);
  if (rec.run.status !== "running")
    throw new PreconditionFailedError(
      `Recording ${rec.run.id} is ${rec.run.status}; start a new recording to call more steps`,
    );
  const taken = new Set(rec.steps.map((s) => s.id));
  const id = parsed.data.id ?? nextStepId(type, taken);
  const idProblem = stepIdProblem(id, taken);
  if (idProblem) throw new ValidationError(idProblem, [{ path: ["id"], message: idProblem }]);
  const step: RecordedStep = { id, type, config: expandStepShorthand(parsed.data.config, taken) };

  // The same checks the saved workflow will get, so what records also publishes.
  const definition = recordedDefinition({
    name: rec.name,
    input: rec.run.input,
    steps: [...rec.steps, step],
  });
  const at = rec.steps.length;
  const validation = validateDefinition(definition, await workspaceValidateOptions(ctx.db, ws.id));
  const issues = validation.issues.filter(
    (i) => i.severity === "error" && (i.path[0] !== "steps" || i.path[1] === at),
  );
  if (issues.length)
    throw new ValidationError(
      issues[0]!.message,
      issues.map((i) => ({
        path: i.path[0] === "steps" ? i.path.slice(2) : i.path,
        message: i.message,
      })),
    );

  // The run's step budget, as the engine counts it: maxSteps, or the plan's lower steps-per-run.
  const quota = await loadWorkspaceQuota(ctx.db, ws.id, ctx.config);
  const maxSteps = tighterCap(
    validation.definition?.constraints.maxSteps,
    quota.limits.stepsPerRun,
  );
  if (maxSteps != null && rec.run.stepAttempts >= maxSteps)
    throw new PreconditionFailedError(
      `Recording ${rec.run.id} reached its limit of ${maxSteps} step attempts; finish it and save it as a workflow`,
    );

  const key: AttemptKey = {
    runId: rec.run.id,
    workspaceId: ws.id,
    stepId: id,
    path: id,
    stepType: type,
    attempt: (rec.attempts.get(id) ?? 0) + 1,
  };
  const now = ctx.now();
  let result:
    | { ok: true; output: { type: string; data: unknown; meta: unknown } }
    | { ok: false; error: { message: string; class: string; details?: unknown } };
  if (preset !== undefined) {
    const output = { type, data: preset, meta: { preset: true } };
    await recordInstantAttempt(ctx.db, key, { input: step.config, output, now });
    result = { ok: true, output };
  } else {
    const outcome = await runActionAttempt({
      key,
      workflowId: rec.run.workflowId,
      rootRunId: rec.run.rootRunId,
      config: step.config,
      context: recordingContext(rec),
      refreshStatus: false,
      deadline: now.getTime() + RECORDED_STEP_BUDGET_MS,
    });
    result = outcome.ok
      ? { ok: true, output: outcome.output }
      : { ok: false, error: outcome.error };
  }
  if (result.ok)
    await keepStep(ctx, rec.run.id, { ...step, ...(preset !== undefined ? { preset: true } : {}) });
  return {
    recordingId: rec.run.id,
    stepId: id,
    attempt: key.attempt,
    config: step.config,
    ...(result.ok
      ? {
          ok: true as const,
          output: result.output,
          reference: `{{ steps.${id}.output.data }}`,
        }
      : { ok: false as const, error: result.error }),
  };
}

/**
 * Adds a completed call to the recording, under the run's row lock: two racing calls with the same
 * id keep one step, and a recording finished meanwhile keeps none.
 */
async function keepStep(
  ctx: ServiceContext,
  runId: string,
  step: RecordedStep & { preset?: true },
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const run = await loadRun(tx, ctx.workspace!.id, runId, { forUpdate: true });
    if (run.status !== "running")
      throw new PreconditionFailedError(
        `Recording ${run.id} ended (${run.status}) while step "${step.id}" ran; it was not kept`,
      );
    const [dup] = await tx
      .select({ id: runEvents.id })
      .from(runEvents)
      .where(
        and(
          eq(runEvents.runId, run.id),
          eq(runEvents.type, STEP_RECORDED_EVENT),
          eq(runEvents.stepPath, step.id),
        ),
      )
      .limit(1);
    if (dup) throw new ConflictError(`Step "${step.id}" was already recorded in this recording`);
    await appendRunEvents(
      tx,
      [
        {
          runId: run.id,
          workspaceId: run.workspaceId,
          type: STEP_RECORDED_EVENT,
          stepPath: step.id,
          data: { ...step },
        },
      ],
      ctx.now(),
    );
  });
}
