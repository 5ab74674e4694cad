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
  /**
   * The resolved config the attempt ran with (secrets redacted as `[REDACTED:name]`); a
   * side-effecting step is served from this recording only when the replay resolves the same.
   * Absent: not known (hand-made fixtures), matched by step id alone.
   */
  input?: JsonValue | null;
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

/** One step of a replayed run compared with the original (issue #29 item 1). */
export type ReplayStepVerdict = "same" | "different_output" | "different_path" | "unverified";
/** A replayed run as a whole: its status and output against the original's. */
export type ReplayOutcome = "same_outcome" | "different_outcome" | "cannot_tell";

/** One change of a JSON diff: where, and the values before and after (absent: not there). */
export interface JsonChange {
  op: "added" | "removed" | "changed";
  path: Array<string | number>;
  before?: JsonValue;
  after?: JsonValue;
}

export interface ReplayStepReport {
  path: string;
  stepId: string;
  stepType: string;
  verdict: ReplayStepVerdict;
  /** Which side executed it: both, only the proposal (replayed), or only the original run. */
  ran: "both" | "proposal" | "original";
  /** `different_output`: the output (data and port) before → after; `unverified`: the input's. */
  diff?: JsonChange[];
  /** Why, in a sentence (which side ran it, why it has no recording). */
  reason?: string;
}

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
  /** The run as a whole (absent in reports stored before issue #29). */
  outcome?: ReplayOutcome;
  /** Every step either side executed, in the proposal's start order then the original's. */
  steps?: ReplayStepReport[];
  /** The replay itself threw (a definition the driver cannot run): no evidence, an error. */
  replayError?: string;
  /** Set on shadow runs: when the replay was made. */
  replayedAt?: string;
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
  /**
   * Side-effecting steps with no recording to serve (new, type changed, resolved input changed):
   * never executed, their branch stops there. Path → why (and the input diff when it changed).
   */
  unverified: Map<string, { reason: string; before?: JsonValue | null; after?: JsonValue | null }>;
  /** Each executed path's step type. */
  types: Map<string, string>;
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
