import "server-only";
import {
  resolveTemplate,
  stepsContext,
  type RunState,
  type RunVerdict,
  type TemplateContext,
} from "@/lib/workflow";
import { finishRun } from "@/server/services/engine/finish-run";
import { loadRunPlan } from "@/server/services/engine/run-plan";
import { engineNow, engineRuntime } from "./runtime";

export async function loadPlanBody(runId: string, executionId?: string) {
  const { db } = await engineRuntime();
  return loadRunPlan(db, runId, engineNow(), executionId);
}

/**
 * Ends the run with the verdict: the output is the `return` value or the definition's `output`
 * template resolved over the final context (a template that fails to resolve fails the run).
 */
export async function finishRunBody(a: {
  runId: string;
  verdict: RunVerdict;
  state: RunState;
  base: TemplateContext;
  outputTemplate: unknown;
  abort?: { status: string; reason: string; message: string };
  leftInFlight: number;
}) {
  const { db, config } = await engineRuntime();
  let status = a.verdict.status;
  let output: unknown = null;
  let error: Record<string, unknown> | null = null;
  if (a.abort) {
    status = a.abort.status as typeof status;
    error = { code: a.abort.reason, message: a.abort.message };
  } else if (status === "completed") {
    try {
      output = a.verdict.returned
        ? (a.verdict.output ?? null)
        : a.outputTemplate === undefined
          ? null
          : resolveTemplate(
              a.outputTemplate,
              { ...a.base, steps: stepsContext(a.state) },
              { strict: true },
            );
    } catch (e) {
      status = "failed";
      error = {
        code: "output_unresolved",
        message: `The workflow's output could not be resolved: ${(e as Error).message}`,
      };
    }
  } else {
    error = describeFailure(a.verdict, a.state);
  }
  const done = await finishRun(
    db,
    config,
    {
      runId: a.runId,
      status,
      output,
      error,
      reason: a.abort?.reason ?? a.verdict.reason,
      stopExecution: a.leftInFlight > 0,
    },
    engineNow(),
  );
  return { status: done.changed ? status : done.status, output, error };
}

function describeFailure(verdict: RunVerdict, state: RunState): Record<string, unknown> {
  const stepId = verdict.stepId;
  const step = stepId ? state.steps[stepId] : undefined;
  const stepError = (step?.error as { message?: string } | undefined)?.message;
  const what: Record<string, string> = {
    unhandled_failure: `Step "${stepId}" failed${stepError ? `: ${stepError}` : ""}`,
    fail_run: `Step "${stepId}" failed and its edge says fail_run${stepError ? `: ${stepError}` : ""}`,
    approval_rejected: `Approval "${stepId}" was rejected and has no "rejected" edge`,
    step_cancelled: `Step "${stepId}" was cancelled`,
    aborted: "The run was stopped",
    stalled: "The run could not make progress",
    returned: "A return step ended the run after an unhandled failure",
    all_steps_finished: "",
  };
  return {
    code: verdict.reason,
    message: what[verdict.reason] ?? verdict.reason,
    ...(stepId ? { stepId } : {}),
    unhandledFailures: verdict.unhandledFailures,
  };
}
