/**
 * The proposal dry run (SPEC §8): replays recorded runs through a proposed definition and reports
 * which would take a different path or fail. The replay itself is the run driver's
 * (`inngest/run-driver/replay.ts`: production's `runGraph` with simulated effects); services sit
 * below the driver, so the caller (inngest/functions/proposal-dry-run.ts) passes it in as
 * `replay`. This module turns what each replay saw into verdicts and the report.
 */
import {
  deepEqual,
  normalizeDefinition,
  type JsonValue,
  type RunVerdict,
  type StepOutcome,
  type WorkflowDefinition,
} from "@/lib/workflow";
import type {
  DryRunOptions,
  DryRunReport,
  DryRunRunReport,
  DryRunVerdict,
  RecordedReplay,
  RecordedRun,
  ReplayRecordedRun,
} from "@/lib/workflow/dry-run-types";
import { runEnding } from "@/server/services/step-execution/finish-bodies";
import { compareReplay } from "./replay-verdicts";

/**
 * A run is `not_comparable` when more than this share of the steps the proposal would execute
 * have no recorded outcome to stand on (their outputs are guesses, so the path is too).
 */
const NOT_COMPARABLE_SHARE = 0.5;

export async function dryRunDefinition(args: {
  /** The run driver's replay (inngest/run-driver/replay.ts). */
  replay: ReplayRecordedRun;
  /** The proposed definition; normalized (defaults, edge ports) here. */
  definition: unknown;
  baseHash: string;
  proposedHash: string;
  runs: RecordedRun[];
  vars?: Record<string, JsonValue>;
  workflowId?: string;
  now?: () => Date;
  /** Called after each replayed run (progress for the review screen). */
  onProgress?: (done: number, total: number) => Promise<void>;
}): Promise<DryRunReport> {
  const definition = normalizeDefinition(args.definition);
  const reports: DryRunRunReport[] = [];
  // One run at a time: the report is computed off the hot path and keeps memory flat.
  for (const run of args.runs) {
    reports.push(
      await dryRunOne(args.replay, definition, run, {
        vars: args.vars,
        workflowId: args.workflowId,
      }),
    );
    await args.onProgress?.(reports.length, args.runs.length);
  }
  const totals: Record<DryRunVerdict, number> = {
    same_path: 0,
    different_path: 0,
    would_fail: 0,
    not_comparable: 0,
  };
  for (const r of reports) totals[r.verdict]++;
  return {
    proposedHash: args.proposedHash,
    baseHash: args.baseHash,
    computedAt: (args.now ?? (() => new Date()))().toISOString(),
    runs: reports,
    totals,
  };
}

/**
 * Replays one recorded run through `definition` (normalized if it is not already). Verdict
 * rules, first match wins:
 * 1. `not_comparable`: the recorded run executed no step, or more than half of the steps the
 *    proposal would execute have no recorded outcome (new side-effecting steps, steps whose
 *    type changed, pure steps that read secrets);
 * 2. `would_fail`: the simulated run ends failed/cancelled/timed out and the recorded run did
 *    not end with that status (a run that already failed and still fails is judged by its path),
 *    unless an unverified side effect (no recording to serve) is what stopped it;
 * 3. `different_path`: the executed sets differ;
 * 4. `same_path`.
 * `failure` is set whenever the simulated run does not complete, whatever the verdict.
 */
export async function dryRunOne(
  replay: ReplayRecordedRun,
  definition: unknown,
  run: RecordedRun,
  options: DryRunOptions = {},
): Promise<DryRunRunReport> {
  const def = normalizeDefinition(definition);
  const log = await replay(def, run, options);
  const end = finishSimulation(def, log);

  const simExecuted = [...log.executed]
    .filter(([, o]) => o?.kind === "completed" || o?.kind === "failed")
    .map(([path]) => path);
  const recExecuted = run.steps
    .filter((s) => s.status === "completed" || s.status === "failed")
    .map((s) => s.path);
  const simSet = new Set(simExecuted);
  const recSet = new Set(recExecuted);
  const newlyExecuted = simExecuted.filter((p) => !recSet.has(p));
  // Recorded steps the proposal would not run: skipped, cancelled, or no longer defined.
  const newlySkipped = recExecuted.filter((p) => !simSet.has(p));
  const notComparable = simExecuted.filter((p) => log.notComparable.has(p));

  const outputBefore = run.output ?? null;
  const outputAfter = (end.output ?? null) as JsonValue | null;
  let verdict: DryRunVerdict;
  if (
    recExecuted.length === 0 ||
    (simExecuted.length > 0 && notComparable.length / simExecuted.length > NOT_COMPARABLE_SHARE)
  ) {
    verdict = "not_comparable";
  } else if (
    end.status !== "completed" &&
    end.status !== run.status &&
    !(end.failure?.stepPath && log.unverified.has(end.failure.stepPath))
  ) {
    verdict = "would_fail";
  } else if (newlyExecuted.length > 0 || newlySkipped.length > 0) {
    verdict = "different_path";
  } else {
    verdict = "same_path";
  }
  return {
    runId: run.runId,
    verdict,
    newlyExecuted,
    newlySkipped,
    notComparable,
    failure: end.failure,
    outputBefore,
    outputAfter,
    outputChanged: !deepEqual(outputBefore, outputAfter),
    ...compareReplay(run, log, end),
  };
}

/** How the run would end: the production rule (`runEnding`), with failures located by path. */
function finishSimulation(
  def: WorkflowDefinition,
  log: RecordedReplay,
): {
  status: string;
  output: unknown;
  failure: DryRunRunReport["failure"];
} {
  const { verdict, abort } = log;
  const end = runEnding({
    verdict,
    state: log.state,
    base: log.base,
    outputTemplate: def.output,
    abort,
  });
  if (end.status === "completed") return { status: end.status, output: end.output, failure: null };
  if (abort)
    return {
      status: end.status,
      output: null,
      failure: { stepPath: log.abortPath, message: abort.message },
    };
  // A completed verdict that ended failed: the output template could not be resolved.
  if (verdict.status === "completed")
    return {
      status: end.status,
      output: null,
      failure: { stepPath: null, message: String(end.error?.message) },
    };
  return { status: end.status, output: null, failure: describeFailure(verdict, log) };
}

/** Where and why: follows a failed loop into the iteration step that failed it. */
function describeFailure(verdict: RunVerdict, log: RecordedReplay): DryRunRunReport["failure"] {
  const stepId = verdict.stepId ?? null;
  if (verdict.reason === "approval_rejected")
    return {
      stepPath: stepId,
      message: `Approval "${stepId}" was rejected and has no "rejected" edge`,
    };
  if (verdict.reason === "approval_timeout")
    return {
      stepPath: stepId,
      message: `Approval "${stepId}" expired without a decision and has no "rejected" edge`,
    };
  if (verdict.reason === "step_cancelled")
    return { stepPath: stepId, message: `Step "${stepId}" was cancelled` };
  if (!stepId)
    return { stepPath: null, message: `The run would end ${verdict.status} (${verdict.reason})` };
  let path = stepId;
  let error = errorOf(log.executed.get(path));
  for (;;) {
    if (!isRecord(error) || typeof error.index !== "number" || typeof error.stepId !== "string")
      break;
    const inner = `${path}[${error.index}].${error.stepId}`;
    if (!log.executed.has(inner)) break;
    path = inner;
    error = errorOf(log.executed.get(path));
  }
  const message = isRecord(error) && typeof error.message === "string" ? error.message : null;
  const policy = verdict.reason === "fail_run" ? " and its edge says fail_run" : "";
  return {
    stepPath: path,
    message: `Step "${path}" failed${policy}${message ? `: ${message}` : ""}`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorOf(outcome: StepOutcome | null | undefined): unknown {
  return outcome?.kind === "failed" ? outcome.error : undefined;
}
