/**
 * The proposal dry run's contract (SPEC §8): the last runs of a workflow, replayed through a
 * proposed definition with every side effect taken from what the original run recorded.
 * Produced by the engine (`inngest/run-driver/dry-run.ts`), stored with the proposal, shown on the
 * review screen.
 */
import type { JsonValue } from "./json";

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
