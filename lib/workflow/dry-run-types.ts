/**
 * The proposal dry run's contract (SPEC §8): the last runs of a workflow, replayed through a
 * proposed definition with every side effect taken from what the original run recorded.
 * Produced by server/services/proposals/dry-run.ts, which replays each run through the run driver
 * (`inngest/run-driver/replay.ts`, passed in as a `ReplayRecordedRun`), stored with the proposal,
 * shown on the review screen.
 */
import type { JsonValue } from "./json";
import type { RunState, RunVerdict, StepOutcome } from "./run-semantics";
import type { TemplateContext } from "./template-resolve";
import type { WorkflowDefinition } from "./definition";

/** One step attempt as the original run recorded it (its final attempt). */
export interface RecordedStep {
  /** Step path: the id, or `loop[2].body_step` inside loop iterations. */
  path: string;
  stepId: string;
  stepType: string;
  status: "completed" | "failed" | "skipped" | "cancelled" | "pending" | "running" | "waiting";
  /** The output envelope `{ type, data, meta }` (null when the step produced none). */
  output: JsonValue | null;
  /** The port the step took (`success`, `true`, `approved`, …), when it completed. */
  port: string | null;
  error: { message: string } | null;
}

/** A finished run of the workflow, as input to the dry run. */
export interface RecordedRun {
  runId: string;
  status: string;
  versionLabel: string | null;
  input: Record<string, JsonValue>;
  trigger: Record<string, JsonValue> | null;
  output: JsonValue | null;
  steps: RecordedStep[];
}

export type DryRunVerdict = "same_path" | "different_path" | "would_fail" | "not_comparable";

export interface DryRunRunReport {
  runId: string;
  verdict: DryRunVerdict;
  /** Step paths the proposed definition would run / skip that the original did not. */
  newlyExecuted: string[];
  newlySkipped: string[];
  /** Steps whose side effect the original run never performed, so no recorded output exists. */
  notComparable: string[];
  /** Where and why the proposed definition would fail. */
  failure: { stepPath: string | null; message: string } | null;
  /** The run output before and after, and whether they differ. */
  outputBefore: JsonValue | null;
  outputAfter: JsonValue | null;
  outputChanged: boolean;
}

export interface DryRunReport {
  /** Definition hash the report was computed for (re-computed when the base changes). */
  proposedHash: string;
  baseHash: string;
  computedAt: string;
  runs: DryRunRunReport[];
  totals: Record<DryRunVerdict, number>;
}

export interface DryRunOptions {
  /** Overrides the proposed definition's `variables` (the `vars` template root). */
  vars?: Record<string, JsonValue>;
  /** `run.workflowId` in templates. */
  workflowId?: string;
}

/** What one recorded run's replay through the driver saw (the dry run's verdict input). */
export interface RecordedReplay {
  verdict: RunVerdict;
  state: RunState;
  /** The run's template context without `steps` (input, vars, run, trigger). */
  base: TemplateContext;
  /** Set when a run-wide limit (constraints.maxSteps) ended the run. */
  abort?: { status: "failed" | "timed_out" | "cancelled"; reason: string; message: string };
  /** Executed paths in start order (loop iterations included), with their outcome once known. */
  executed: Map<string, StepOutcome | null>;
  /** Paths whose outcome is a guess: no recorded side effect, or a pure step that reads secrets. */
  notComparable: Set<string>;
  /** The path at which constraints.maxSteps stopped the run. */
  abortPath: string | null;
}

/**
 * Replays one recorded run through a normalized definition with simulated effects: the run
 * driver's side of the dry run, passed into the proposals service by its caller.
 */
export type ReplayRecordedRun = (
  definition: WorkflowDefinition,
  run: RecordedRun,
  options: DryRunOptions,
) => Promise<RecordedReplay>;
