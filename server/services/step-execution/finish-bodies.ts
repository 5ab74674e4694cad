import "server-only";
import {
  resolveTemplate,
  stepsContext,
  type RunState,
  type RunVerdict,
  type TemplateContext,
} from "@/lib/workflow";
import { finishRun } from "@/server/services/run-state/finish-run";
import {
  writeWave,
  type WaveRecord,
  type WaveTail,
} from "@/server/services/run-state/wave-records";
import { loadRunPlan } from "@/server/services/run-state/run-plan";
import { runtimeNow, stepRuntime, inlineAfterParallel } from "./runtime";

export async function loadPlanBody(runId: string, executionId?: string) {
  const { db, config } = await stepRuntime();
  const loaded = await loadRunPlan(db, runId, runtimeNow(), executionId, config);
  return loaded.ok && inlineAfterParallel(config)
    ? { ...loaded, plan: { ...loaded.plan, inlineAfterParallel: true } }
    : loaded;
}

/**
 * How a run ends, given its verdict (pure; production and the proposal dry run share it): an
 * abort wins; a completed run's output is the `return` value or the definition's `output`
 * template resolved over the final context (a template that fails to resolve fails the run).
 */
export function runEnding(a: {
  verdict: RunVerdict;
  state: RunState;
  base: TemplateContext;
  outputTemplate: unknown;
  abort?: { status: string; reason: string; message: string };
}): { status: RunVerdict["status"]; output: unknown; error: Record<string, unknown> | null } {
  if (a.abort) {
    return {
      status: a.abort.status as RunVerdict["status"],
      output: null,
      error: { code: a.abort.reason, message: a.abort.message },
    };
  }
  if (a.verdict.status !== "completed") {
    return { status: a.verdict.status, output: null, error: describeFailure(a.verdict, a.state) };
  }
  try {
    const output = a.verdict.returned
      ? (a.verdict.output ?? null)
      : a.outputTemplate === undefined
        ? null
        : resolveTemplate(
            a.outputTemplate,
            { ...a.base, steps: stepsContext(a.state) },
            { strict: true },
          );
    return { status: "completed", output, error: null };
  } catch (e) {
    return {
      status: "failed",
      output: null,
      error: {
        code: "output_unresolved",
        message: `The workflow's output could not be resolved: ${(e as Error).message}`,
      },
    };
  }
}

/** How a run ended, as the finish step memoizes it. */
export interface RunEnded {
  status: string;
  output: unknown;
  error: Record<string, unknown> | null;
}

/**
 * Ends the run with the verdict (see runEnding). `wave`: the rows of the wave that ended the run,
 * written in the same transaction (waves.ts).
 */
export async function finishRunBody(a: {
  runId: string;
  verdict: RunVerdict;
  state: RunState;
  base: TemplateContext;
  outputTemplate: unknown;
  abort?: { status: string; reason: string; message: string };
  leftInFlight: number;
  wave?: WaveRecord[];
}): Promise<RunEnded> {
  const { db, config } = await stepRuntime();
  const { status, output, error } = runEnding(a);
  const now = runtimeNow();
  const wave = a.wave;
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
    now,
    wave?.length
      ? async (tx, run) => {
          // The wave's attempt count and events ride on the finish's own writes.
          const tail: WaveTail = { attempts: 0, events: [] };
          await writeWave(tx, { runId: a.runId, workspaceId: run.workspaceId }, wave, now, tail);
          return tail;
        }
      : undefined,
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
    approval_timeout: `Approval "${stepId}" expired without a decision (onTimeout: reject) and has no "rejected" edge`,
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
